/**
 * The desktop app's engine process without the process: an EngineChild (what EngineHost spawns)
 * that serves a real Engine through the engine side of the host protocol (engine-service.ts, as
 * engine-process.ts does), every message structured-cloned and delivered later, as Electron's
 * utilityProcess does. Both ends validate what they receive, as in the app. The Engine belongs to
 * the caller: a shutdown stops the service and "exits"; closing the engine is the caller's.
 */
import { EventEmitter } from 'node:events';
import type { Engine } from '../../electron/engine/engine.js';
import type { EngineChild } from '../../electron/main/engine-host.js';
import type { HostMessage } from '../../electron/main/engine-protocol.js';
import { serveEngine, type EngineService } from '../../electron/main/engine-service.js';

export class InMemoryEngineChild extends EventEmitter implements EngineChild {
  private toEngine: ((message: unknown) => void) | null = null;
  private exited = false;
  private readonly service: EngineService;

  constructor(engine: Engine, eventIntervalMs?: number) {
    super();
    this.service = serveEngine({
      engine,
      eventIntervalMs,
      port: {
        postMessage: (m) => this.deliver(() => this.emit('message', structuredClone(m))),
        onMessage: (fn) => void (this.toEngine = fn),
      },
      onShutdown: () => this.exit(0),
    });
    // engine-process.ts says ready once the engine is open; the host listens right after spawn.
    this.deliver(() => this.emit('message', { ready: true }));
  }

  postMessage(message: HostMessage): void {
    if (this.exited) throw new Error('the engine process has exited');
    const copy = structuredClone(message);
    this.deliver(() => this.toEngine?.(copy));
  }

  kill(): boolean {
    this.exit(null);
    return true;
  }

  private exit(code: number | null): void {
    if (this.exited) return;
    this.exited = true;
    this.service.close();
    queueMicrotask(() => this.emit('exit', code));
  }

  /** A message arrives after the sender's turn (before the exit, if it was sent before it); none is sent once the process is gone. */
  private deliver(fn: () => void): void {
    if (!this.exited) queueMicrotask(fn);
  }
}
