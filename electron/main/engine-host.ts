/**
 * Hosts the engine in a child process (an Electron utilityProcess in the app): forwards contract
 * calls, relays engine events, and restarts the child when it dies. No Electron import — the child is
 * made by an injected `spawn`, and time by injected timers — so every branch is tested in Node.
 *
 * Invariants:
 * - A call is answered exactly once: by the child, or with an envelope when the child dies, the host
 *   stops, or the host gives up. A call sent to a child that then died fails `retryable` (the engine
 *   may or may not have applied it; every contract action is safe to repeat or shows its state).
 * - Calls made while no child is ready wait in a bounded queue and go to the next ready child.
 * - Restarts back off exponentially up to a cap; a child that stayed up `stableAfterMs` resets the
 *   streak. After `maxConsecutiveCrashes` the host gives up, and so does a non-retryable `fatal`
 *   (e.g. an edited migration): restarting cannot fix those.
 */
import type { ApiMethod } from '../../shared/api.js';
import { ShotfarmError, type ErrorEnvelope } from '../../shared/errors.js';
import type { EventMap, WireTopic } from '../../shared/events.js';
import { systemClock, systemTimers, type Clock, type Timers } from '../engine/clock.js';
import type { ShellEventMap } from '../preload/channels.js';
import { engineMessageSchema, type HostMessage } from './engine-protocol.js';
import { restartDelay, type BackoffPolicy } from './restart-policy.js';

/** What the host needs of a child process; Electron's UtilityProcess has this shape. */
export interface EngineChild {
  postMessage(message: HostMessage): void;
  kill(): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'exit', listener: (code: number | null) => void): unknown;
}

export type SpawnEngine = () => EngineChild;

export type HostState = 'idle' | 'starting' | 'ready' | 'backoff' | 'stopping' | 'stopped' | 'failed';

export interface EngineHostOptions {
  spawn: SpawnEngine;
  timers?: Timers;
  clock?: Clock;
  backoff?: Partial<BackoffPolicy>;
  /** A child up this long before it dies starts a fresh streak (default 60 s). */
  stableAfterMs?: number;
  /** Crashes in a row before giving up (default 8). */
  maxConsecutiveCrashes?: number;
  /** A child that does not say `ready` within this is killed and counts as a crash (default 60 s). */
  readyTimeoutMs?: number;
  /** How long `stop` waits for a clean exit before killing (default 5 s). */
  stopTimeoutMs?: number;
  /** Calls waiting for a child beyond this are refused at once (default 1000). */
  maxQueued?: number;
  log?: (message: string) => void;
}

interface Pending {
  method: string;
  input: unknown;
  resolve: (value: unknown) => void;
  reject: (err: ShotfarmError) => void;
}

type HostListeners = {
  event: (topic: WireTopic, payload: EventMap[WireTopic]) => void;
  restarted: (notice: ShellEventMap['engine.restarted']) => void;
  failed: (error: ErrorEnvelope) => void;
};

export class EngineHost {
  private readonly o: Required<Omit<EngineHostOptions, 'backoff'>> & { backoff: Partial<BackoffPolicy> };
  private child: EngineChild | null = null;
  private state: HostState = 'idle';
  private nextId = 1;
  private readonly inflight = new Map<number, Pending>();
  private readonly queue: Pending[] = [];
  private restartTimer: unknown = null;
  private readyTimer: unknown = null;
  private readyAt = 0;
  private consecutive = 0;
  private restartCount = 0;
  /** Why the last child died, reported with `restarted` once its successor is ready. */
  private lastCrash: string | null = null;
  private failure: ErrorEnvelope | null = null;
  private stopped: (() => void) | null = null;
  private readonly listeners: { [K in keyof HostListeners]: Set<HostListeners[K]> } = {
    event: new Set(),
    restarted: new Set(),
    failed: new Set(),
  };

  constructor(opts: EngineHostOptions) {
    this.o = {
      timers: systemTimers,
      clock: systemClock,
      stableAfterMs: 60_000,
      maxConsecutiveCrashes: 8,
      readyTimeoutMs: 60_000,
      stopTimeoutMs: 5_000,
      maxQueued: 1000,
      log: () => undefined,
      ...opts,
      backoff: opts.backoff ?? {},
    };
  }

  get status(): HostState {
    return this.state;
  }

  /** Restarts so far (a counter the UI and the log can show). */
  get restarts(): number {
    return this.restartCount;
  }

  on<K extends keyof HostListeners>(what: K, fn: HostListeners[K]): () => void {
    this.listeners[what].add(fn);
    return () => this.listeners[what].delete(fn);
  }

  start(): void {
    if (this.state !== 'idle') return;
    this.launch();
  }

  /** Forwards one contract call; rejects with a `ShotfarmError` carrying the envelope. */
  call(method: ApiMethod, input: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(fromEnvelope(this.failure));
      if (this.state === 'stopping' || this.state === 'stopped' || this.state === 'idle') {
        return reject(new ShotfarmError('unavailable', 'The engine is not running (Shotfarm is closing).'));
      }
      const p: Pending = { method, input, resolve, reject };
      if (this.state === 'ready' && this.child) return this.send(this.child, p);
      if (this.queue.length >= this.o.maxQueued) {
        return reject(
          new ShotfarmError(
            'unavailable',
            'The engine is restarting and too many requests are waiting; try again shortly.',
            { retryable: true },
          ),
        );
      }
      this.queue.push(p);
    });
  }

  /** Asks the child to close the engine (the scheduler stops, the database closes) and waits for it. */
  stop(): Promise<void> {
    if (this.state === 'stopped' || this.state === 'idle' || this.state === 'failed') {
      this.state = this.state === 'failed' ? 'failed' : 'stopped';
      return Promise.resolve();
    }
    this.clearTimer('restartTimer');
    this.clearTimer('readyTimer');
    this.failAll(new ShotfarmError('unavailable', 'Shotfarm is closing; the request was not completed.'));
    const child = this.child;
    if (!child || this.state === 'backoff') {
      this.state = 'stopped';
      this.child = null;
      return Promise.resolve();
    }
    this.state = 'stopping';
    return new Promise<void>((resolve) => {
      const killTimer = this.o.timers.setTimeout(() => {
        this.o.log('the engine did not exit in time; killing it');
        child.kill();
      }, this.o.stopTimeoutMs);
      this.stopped = () => {
        this.o.timers.clearTimeout(killTimer);
        resolve();
      };
      try {
        child.postMessage({ shutdown: true });
      } catch {
        child.kill();
      }
    });
  }

  private launch(): void {
    this.state = 'starting';
    let child: EngineChild;
    try {
      child = this.o.spawn();
    } catch (err) {
      this.crashed(null, `it could not be started: ${(err as Error).message}`);
      return;
    }
    this.child = child;
    child.on('message', (m) => this.onMessage(child, m));
    child.on('exit', (code) => this.onExit(child, code));
    this.readyTimer = this.o.timers.setTimeout(() => {
      this.readyTimer = null;
      if (this.child !== child || this.state !== 'starting') return;
      this.o.log(`the engine did not start within ${this.o.readyTimeoutMs} ms; killing it`);
      this.lastCrash = 'it did not start in time';
      child.kill();
    }, this.o.readyTimeoutMs);
  }

  private onMessage(child: EngineChild, raw: unknown): void {
    if (child !== this.child) return; // a late message from a child already replaced
    const parsed = engineMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.o.log(`ignored a malformed message from the engine: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      return;
    }
    const m = parsed.data;
    if ('ready' in m) return this.onReady(child);
    if ('fatal' in m) return this.onFatal(m.fatal);
    if ('event' in m) {
      for (const fn of this.listeners.event) fn(m.event, m.payload as EventMap[WireTopic]);
      return;
    }
    const p = this.inflight.get(m.id);
    if (!p) return; // answered already (e.g. failed when the child was presumed dead)
    this.inflight.delete(m.id);
    if (m.ok) p.resolve(m.result);
    else p.reject(fromEnvelope(m.error));
  }

  private onReady(child: EngineChild): void {
    if (this.state !== 'starting') return;
    this.clearTimer('readyTimer');
    this.state = 'ready';
    this.readyAt = this.o.clock.now();
    if (this.lastCrash !== null) {
      const notice = { restarts: this.restartCount, reason: this.lastCrash };
      this.lastCrash = null;
      for (const fn of this.listeners.restarted) fn(notice);
    }
    for (const p of this.queue.splice(0)) this.send(child, p);
  }

  private onFatal(error: ErrorEnvelope): void {
    this.o.log(`the engine cannot start: ${error.message}`);
    if (error.retryable) {
      this.lastCrash = error.message; // the exit that follows is handled as a crash
      return;
    }
    this.giveUp(error);
  }

  private onExit(child: EngineChild, code: number | null): void {
    if (child !== this.child) return;
    this.child = null;
    this.clearTimer('readyTimer');
    if (this.state === 'stopping') {
      this.state = 'stopped';
      this.stopped?.();
      this.stopped = null;
      return;
    }
    if (this.state === 'failed' || this.state === 'stopped') return;
    this.crashed(code, this.lastCrash ?? `it exited with code ${code ?? 'unknown'}`);
  }

  private crashed(code: number | null, reason: string): void {
    this.o.log(`the engine stopped unexpectedly (${reason})`);
    // Sent calls are in doubt: fail them so the UI can refetch and retry; queued ones wait.
    for (const [id, p] of this.inflight) {
      this.inflight.delete(id);
      p.reject(
        new ShotfarmError(
          'unavailable',
          'The engine restarted while handling this request; check the result and try again.',
          { retryable: true },
        ),
      );
    }
    const upLongEnough = this.readyAt > 0 && this.o.clock.now() - this.readyAt >= this.o.stableAfterMs;
    this.consecutive = upLongEnough ? 1 : this.consecutive + 1;
    this.readyAt = 0;
    if (this.consecutive > this.o.maxConsecutiveCrashes) {
      this.giveUp({
        code: 'internal',
        retryable: false,
        message: `The engine stopped ${this.o.maxConsecutiveCrashes} times in a row (last: ${reason}); restart Shotfarm. The log has details.`,
        details: { exitCode: code },
      });
      return;
    }
    this.lastCrash = reason;
    this.state = 'backoff';
    const delay = restartDelay(this.consecutive, this.o.backoff);
    this.restartTimer = this.o.timers.setTimeout(() => {
      this.restartTimer = null;
      if (this.state !== 'backoff') return;
      this.restartCount += 1;
      this.launch();
    }, delay);
  }

  private giveUp(error: ErrorEnvelope): void {
    this.failure = error;
    this.state = 'failed';
    this.clearTimer('restartTimer');
    this.clearTimer('readyTimer');
    this.failAll(fromEnvelope(error));
    const child = this.child;
    this.child = null;
    child?.kill();
    for (const fn of this.listeners.failed) fn(error);
  }

  private send(child: EngineChild, p: Pending): void {
    const id = this.nextId++;
    this.inflight.set(id, p);
    try {
      child.postMessage({ id, method: p.method, input: p.input });
    } catch (err) {
      // Inputs reach us through IPC, already cloned once, so a failed post means the channel is
      // closing (the child is dying and its exit is on the way). Nothing was sent: safe to retry.
      this.inflight.delete(id);
      p.reject(
        new ShotfarmError(
          'unavailable',
          `The engine could not take the request for ${p.method}: ${(err as Error).message}`,
          { retryable: true },
        ),
      );
    }
  }

  private failAll(err: ShotfarmError): void {
    for (const p of this.queue.splice(0)) p.reject(err);
    for (const [id, p] of this.inflight) {
      this.inflight.delete(id);
      p.reject(err);
    }
  }

  private clearTimer(which: 'restartTimer' | 'readyTimer'): void {
    if (this[which] !== null) this.o.timers.clearTimeout(this[which]);
    this[which] = null;
  }
}

function fromEnvelope(e: ErrorEnvelope): ShotfarmError {
  return new ShotfarmError(
    e.code,
    e.message,
    e.details ? { retryable: e.retryable, details: e.details } : { retryable: e.retryable },
  );
}
