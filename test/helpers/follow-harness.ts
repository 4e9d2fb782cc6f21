/**
 * One followed attempt (pools/comfy-lan/attempt-follow.ts) against a fake server, with hand-driven
 * time: timers fire only when the test says so, the server answers /queue and /history from a flag
 * and records every ask, and the attempt's socket events are pushed by the test.
 */
import { ManualClock, type Timers } from '../../electron/engine/clock.js';
import { EventQueue } from '../../electron/engine/comfy/event-queue.js';
import type { HistoryEntry, QueueItem, QueueSnapshot } from '../../electron/engine/comfy/responses.js';
import type { FollowEvent } from '../../electron/engine/comfy/ws-events.js';
import type { AttemptScope } from '../../electron/engine/pools/comfy-lan/attempt-scope.js';
import { schedulerConfig } from '../../electron/engine/settings/farm-config.js';

export const PROMPT = '8d0f2f7e-5c1a-5b53-9a51-0e0f4f0b2a11';
export const ATTEMPT = 'a-17';

/** Timers that fire only when the test says so, on a manual clock. */
export class HandTimers implements Timers {
  private pending: { at: number; fn: () => void; id: number }[] = [];
  private next = 0;
  constructor(private readonly clock: ManualClock) {}
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.next;
    this.pending.push({ at: this.clock.now() + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending = this.pending.filter((t) => t.id !== handle);
  }
  /** Moves the clock to the earliest timer and fires it. */
  fireNext(): void {
    this.pending.sort((a, b) => a.at - b.at);
    const t = this.pending.shift();
    if (!t) throw new Error('no timer pending: the loop is waiting for something else');
    if (t.at > this.clock.now()) this.clock.set(t.at);
    t.fn();
  }
}

/** A server running our prompt; its history entry appears (and the queue empties) only when the test writes it. */
export class FakeServer {
  historyWritten = false;
  asks: { at: number; route: string }[] = [];
  constructor(private readonly clock: ManualClock) {}
  private readonly item: QueueItem = {
    number: 7,
    promptId: PROMPT,
    prompt: {},
    extraData: { shotfarm_attempt: ATTEMPT },
    outputsToExecute: ['9'],
  };
  async getQueue(): Promise<QueueSnapshot> {
    this.asks.push({ at: this.clock.now(), route: 'GET /queue' });
    return { running: this.historyWritten ? [] : [this.item], pending: [] };
  }
  async getHistory(): Promise<HistoryEntry | null> {
    this.asks.push({ at: this.clock.now(), route: 'GET /history' });
    if (!this.historyWritten) return null;
    return { ...this.item, outputs: {}, status: { statusStr: 'success', completed: true, messages: [] }, meta: null };
  }
  count(route: string): number {
    return this.asks.filter((a) => a.route === route).length;
  }
}

/**
 * The scope of one attempt posted with `client-1`. `station`: the workstation's socket as the
 * follow loop reads it (its client id and when it last spoke); absent, the instance has none.
 */
export function followHarness(o: {
  pollMs: number;
  station?: { clientId: string | null; spokeAt: number | null };
  stallTimeoutS?: number;
}) {
  const clock = new ManualClock();
  const timers = new HandTimers(clock);
  const server = new FakeServer(clock);
  const socket = new EventQueue<FollowEvent>();
  let wakeUp: (() => void) | null = null;
  const noop = () => undefined;
  const released: { instanceId: string; attemptId: string; at: number }[] = [];
  const scope = {
    deps: {
      registry: {
        releaseSlot: (instanceId: string, attemptId: string) =>
          released.push({ instanceId, attemptId, at: clock.now() }),
      },
      clock,
      timers,
      config: schedulerConfig('/unused', {
        historyPollMs: o.pollMs,
        ...(o.stallTimeoutS ? { stallTimeoutS: o.stallTimeoutS } : {}),
      }),
      events: { emit: noop },
      contact: { heard: noop, missed: noop, loss: () => null, watch: () => noop, isSilent: () => false },
      // The engine never stalled in these scripted runs (loop-stall.ts).
      listeningSince: () => 0,
    },
    job: { id: PROMPT, timeout_s: 3_600 },
    attemptId: ATTEMPT,
    instance: { row: { id: 'i1', name: 'gpu-03' }, socket: o.station ?? null },
    client: server,
    name: 'gpu-03',
    exec: { promptId: PROMPT, attemptId: ATTEMPT, number: 7 },
    workflow: null,
    signal: new AbortController().signal,
    stopMode: null,
    facts: {},
    postedWith: 'client-1',
    interruptRequested: false,
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        const t = timers.setTimeout(() => {
          wakeUp = null;
          resolve();
        }, ms);
        wakeUp = () => {
          timers.clearTimeout(t);
          wakeUp = null;
          resolve();
        };
      }),
    wake: () => wakeUp?.(),
    started: noop,
    phase: noop,
  } as unknown as AttemptScope;
  const frame = (type: string, data: Record<string, unknown>): FollowEvent =>
    ({ type, data, connection: 1, clientId: 'client-1', inRun: true }) as unknown as FollowEvent;
  return { clock, timers, server, socket, scope, frame, released };
}
