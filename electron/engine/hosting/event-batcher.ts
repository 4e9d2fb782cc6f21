/**
 * Batches engine events for the wire — the headless server's WebSocket and the desktop's IPC both
 * relay them through this: at most one flush per `intervalMs` (100 ms → ≤ 10 a second), and within
 * a batch only the latest event per job (progress, change) or per instance is kept, so a busy farm
 * sends a bounded stream whatever the event rate. Order of the kept events is the order of their
 * latest occurrence. Only the `wire` topics of shared/events.ts are relayed.
 */
import { WIRE_TOPICS, type WireEvent } from '../../../shared/events.js';
import type { EventBus } from '../event-bus.js';

export type { WireEvent };

/** Subscribes `push` to every wire topic of the engine's bus; returns the unsubscribe. */
export function relayWireEvents(events: EventBus, push: (e: WireEvent) => void): () => void {
  const offs = WIRE_TOPICS.map((topic) => events.on(topic, (payload) => push({ topic, payload } as WireEvent)));
  return () => {
    for (const off of offs) off();
  };
}

/** Which events replace each other inside one batch. */
export function coalesceKey(e: WireEvent): string {
  switch (e.topic) {
    case 'job.changed':
      return `job:${e.payload.job.id}`;
    case 'job.progress':
      return `progress:${e.payload.jobId}`;
    case 'instance.changed':
      return `instance:${e.payload.instance.id}`;
    case 'instance.removed':
      return `instance:${e.payload.id}`;
    case 'jobs.bulkChanged':
      return 'bulk';
    case 'import.progress':
      // The latest count of each import: the bar shows where it is, not every step.
      return `import:${e.payload.progressId}`;
    case 'farm.changed':
      return 'farm';
    case 'people.changed':
      return 'people';
    case 'forecast.changed':
      return 'forecast';
    case 'forecast.late':
      return `late:${e.payload.group.key}`;
  }
}

export interface BatcherTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: BatcherTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export class EventBatcher {
  private pending = new Map<string, WireEvent>();
  private timer: unknown = null;
  private lastFlush = -Infinity;

  constructor(
    private readonly flush: (events: WireEvent[]) => void,
    private readonly intervalMs = 100,
    private readonly timers: BatcherTimers = realTimers,
  ) {}

  push(e: WireEvent): void {
    const key = coalesceKey(e);
    const prev = this.pending.get(key);
    this.pending.delete(key);
    if (prev && prev.topic === 'jobs.bulkChanged' && e.topic === 'jobs.bulkChanged') {
      this.pending.set(key, { topic: 'jobs.bulkChanged', payload: { count: prev.payload.count + e.payload.count } });
    } else {
      this.pending.set(key, e);
    }
    if (this.timer === null) {
      const wait = Math.max(0, this.lastFlush + this.intervalMs - this.timers.now());
      this.timer = this.timers.setTimeout(() => this.flushNow(), wait);
    }
  }

  flushNow(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.lastFlush = this.timers.now();
    this.flush(batch);
  }

  close(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.pending.clear();
  }
}
