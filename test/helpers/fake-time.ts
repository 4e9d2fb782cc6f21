/** Timers and a clock that move only when the test says so (for code that takes injected timers). */
import type { Clock, Timers } from '../../electron/engine/clock.js';

export class FakeTime implements Timers, Clock {
  private t: number;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void; ms: number }>();
  /** Every delay ever scheduled, in order (to read a backoff). */
  readonly scheduled: number[] = [];

  constructor(start = 0) {
    this.t = start;
  }

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
