/**
 * The engine side of the host protocol (engine-protocol.ts): answers calls through `engine.call`
 * (which validates every input against the contract) and pushes the engine's events, batched like
 * the headless server's WebSocket so a busy farm cannot flood the main process or the renderer.
 */
import { isApiMethod } from '../../shared/api.js';
import { ShotfarmError, toErrorEnvelope } from '../../shared/errors.js';
import type { Engine } from '../engine/engine.js';
import { EventBatcher, relayWireEvents, type WireEvent } from '../engine/hosting/event-batcher.js';
import { hostMessageSchema, type EngineMessage } from './engine-protocol.js';

/** The channel to the host: Electron's `process.parentPort`, or Node's IPC (see parent-port.ts). */
export interface HostPort {
  postMessage(message: EngineMessage): void;
  onMessage(listener: (message: unknown) => void): void;
}

export interface EngineService {
  /** Stops relaying events; the engine itself is closed by the caller. */
  close(): void;
}

export function serveEngine(o: {
  engine: Engine;
  port: HostPort;
  onShutdown: () => void;
  eventIntervalMs?: number;
  log?: (m: string) => void;
}): EngineService {
  const log = o.log ?? (() => undefined);
  const post = (m: EngineMessage): void => {
    try {
      o.port.postMessage(m);
    } catch (err) {
      log(`could not send a message to the host: ${(err as Error).message}`);
    }
  };
  const batcher = new EventBatcher((events: WireEvent[]) => {
    for (const e of events) post({ event: e.topic, payload: e.payload as unknown as Record<string, unknown> });
  }, o.eventIntervalMs ?? 100);
  const unsubscribe = relayWireEvents(o.engine.events, (e) => batcher.push(e));

  o.port.onMessage((raw) => {
    const parsed = hostMessageSchema.safeParse(raw);
    if (!parsed.success) {
      const id = (raw as { id?: unknown } | null)?.id;
      log('ignored a malformed message from the host');
      if (typeof id === 'number' && Number.isInteger(id) && id >= 0) {
        post({ id, ok: false, error: { code: 'bad_input', message: 'The request was malformed.', retryable: false } });
      }
      return;
    }
    const m = parsed.data;
    if ('shutdown' in m) {
      batcher.flushNow();
      o.onShutdown();
      return;
    }
    const { id, method, input } = m;
    if (!isApiMethod(method)) {
      post({ id, ok: false, error: new ShotfarmError('not_found', `Unknown method ${method}.`).envelope });
      return;
    }
    o.engine.call(method, input).then(
      (result) => {
        try {
          o.port.postMessage({ id, ok: true, result });
        } catch (err) {
          // A result that cannot be cloned is an engine bug; the caller must still get an answer.
          post({
            id,
            ok: false,
            error: {
              code: 'internal',
              message: `The answer to ${method} could not be sent: ${(err as Error).message}`,
              retryable: false,
            },
          });
        }
      },
      (err: unknown) => post({ id, ok: false, error: toErrorEnvelope(err) }),
    );
  });

  return {
    close() {
      unsubscribe();
      batcher.close();
    },
  };
}
