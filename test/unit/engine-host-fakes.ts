/** Fakes for the engine host's process edges: a child process and hand-moved timers. */
import { EventEmitter } from 'node:events';
import type { Timers, Clock } from '../../electron/engine/clock.js';
import type { EngineChild } from '../../electron/main/engine-host.js';
import type { HostMessage } from '../../electron/main/engine-protocol.js';

/** A child process: records what the host posts; the test plays the engine's side. */
export class FakeChild extends EventEmitter implements EngineChild {
  readonly posted: HostMessage[] = [];
  killed = false;

  postMessage(message: HostMessage): void {
    // Like structured clone: functions cannot cross.
    if (JSON.stringify(message, (_k, v: unknown) => { if (typeof v === 'function') throw new Error('could not be cloned'); return v; }) === undefined) return;
    this.posted.push(message);
  }

  kill(): boolean {
    this.killed = true;
    return true;
  }

  /** The engine says something. */
  say(message: unknown): void {
    this.emit('message', message);
  }

  ready(): void {
    this.say({ ready: true });
  }

  crash(code = 139): void {
    this.emit('exit', code);
  }

  /** The calls posted so far. */
  calls(): { id: number; method: string; input: unknown }[] {
    return this.posted.filter((m): m is { id: number; method: string; input: unknown } => 'id' in m);
  }
}

/** Timers and a clock that move only when the test says so. */
export class FakeTime implements Timers, Clock {
  private t = 0;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void; ms: number }>();
  /** Every delay ever scheduled, in order (to read the backoff). */
  readonly scheduled: number[] = [];

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { at: this.t + ms, fn, ms });
    this.scheduled.push(ms);
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Moves time forward, running each timer that falls due, in order. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | null = null;
      for (const e of this.pending) if (e[1].at <= end && (!next || e[1].at < next[1].at)) next = e;
      if (!next) break;
      this.pending.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
    }
    this.t = end;
  }

  /** Delays of the timers still waiting. */
  waiting(): number[] {
    return [...this.pending.values()].map((p) => p.ms);
  }
}

/** A spawn function that hands out fresh fake children and remembers them. */
export function fakeSpawner(): { spawn: () => FakeChild; children: FakeChild[]; last: () => FakeChild } {
  const children: FakeChild[] = [];
  return {
    children,
    spawn: () => {
      const c = new FakeChild();
      children.push(c);
      return c;
    },
    last: () => {
      const c = children.at(-1);
      if (!c) throw new Error('no child spawned yet');
      return c;
    },
  };
}

/** Lets promise callbacks run. */
export const flush = (): Promise<void> => new Promise((r) => setImmediate(r));
