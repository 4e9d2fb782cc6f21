/**
 * The desktop app's transport: `window.shotfarm`, exposed by the Electron preload (bridge.d.ts).
 * IPC to the engine does not drop like a socket, so the connection is `online` from the start;
 * errors come back as the contract's envelope, which the preload passes through as a plain object.
 */
import type { ApiInput, ApiMethod, ApiOutputs } from '../../shared/api.js';
import type { EventMap, EventTopic } from '../../shared/events.js';
import type { ShotfarmBridge } from './bridge.js';
import { ApiError, type ServerInfo, type ShotfarmClient } from './client.js';
import { callAnswer, isTopic, transportError } from './wire.js';

function asEnvelopeError(err: unknown): ApiError {
  // The preload rejects with the envelope (structured clone keeps plain objects, not Error subclasses).
  const maybe = callAnswer.safeParse({ ok: false, error: (err as { envelope?: unknown })?.envelope ?? err });
  if (maybe.success && !maybe.data.ok) return new ApiError(maybe.data.error);
  return new ApiError(transportError(err instanceof Error ? err.message : 'The engine did not answer.', false));
}

export function createIpcClient(bridge: ShotfarmBridge): ShotfarmClient {
  return {
    async call<M extends ApiMethod>(method: M, input: ApiInput<M>): Promise<ApiOutputs[M]> {
      try {
        return (await bridge.call(method, input)) as ApiOutputs[M];
      } catch (err) {
        throw asEnvelopeError(err);
      }
    },
    subscribe<T extends EventTopic>(topic: T, fn: (payload: EventMap[T]) => void) {
      if (!isTopic(topic)) return () => undefined;
      return bridge.subscribe(topic, (payload) => fn(payload as EventMap[T]));
    },
    onConnection(fn) {
      fn('online');
      return () => undefined;
    },
    async info(): Promise<ServerInfo> {
      return { name: 'Shotfarm', demoLabel: null, tokenRequired: false, exportDir: null };
    },
    assetUrl: () => null,
  };
}
