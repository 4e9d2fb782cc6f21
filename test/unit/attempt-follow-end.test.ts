/**
 * The follow loop against the real server's order at a prompt's end, with a fake server and hand-
 * driven time: `execution_success` arrives before the history entry exists, so an ask at that
 * moment finds the prompt still running — the loop asks again within milliseconds (5, 10, 20 …),
 * never after the full poll interval, and collects as soon as the entry is written. When the frames
 * after the history write do arrive, one ask is enough. The workstation's slot is freed at a
 * successful run's end message (the GPU is done; the history write is bookkeeping), not a failed one's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock, type Timers } from '../../electron/engine/clock.js';
import { EventQueue } from '../../electron/engine/comfy/event-queue.js';
import type { HistoryEntry, QueueItem, QueueSnapshot } from '../../electron/engine/comfy/responses.js';
import type { FollowEvent } from '../../electron/engine/comfy/ws-events.js';
import { AttemptFollow } from '../../electron/engine/pools/comfy-lan/attempt-follow.js';
import type { AttemptScope, Outcome } from '../../electron/engine/pools/comfy-lan/attempt-scope.js';
import { schedulerConfig } from '../../electron/engine/settings/farm-config.js';

const PROMPT = '8d0f2f7e-5c1a-5b53-9a51-0e0f4f0b2a11';
const ATTEMPT = 'a-17';
const POLL_MS = 5_000;

/** Timers that fire only when the test says so, on a manual clock. */
class HandTimers implements Timers {
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

/** A server whose history entry appears only when the test writes it. */
class FakeServer {
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
}

function setUp() {
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
      config: schedulerConfig('/unused', { historyPollMs: POLL_MS }),
      events: { emit: noop },
      contact: { heard: noop, missed: noop, loss: () => null, watch: () => noop },
      // The engine never stalled in these scripted runs (loop-stall.ts).
      listeningSince: () => 0,
    },
    job: { id: PROMPT, timeout_s: 600 },
    attemptId: ATTEMPT,
    instance: { row: { id: 'i1', name: 'gpu-03' } },
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

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

test('a check that finds the prompt still running right after execution_success asks again after 5, 10, 20 ms — not after the poll interval', async () => {
  const { clock, timers, server, socket, scope, frame } = setUp();
  let outcome: Outcome | null = null;
  void new AttemptFollow(scope, socket).run().then((o) => (outcome = o));
  await settle(); // the first ask: running
  socket.push(frame('execution_success', { prompt_id: PROMPT, timestamp: 1 }));
  const endAt = clock.now();
  await settle();
  // The frames after the history write never come (lost): only the loop's own re-asks find the end.
  for (let i = 0; i < 3; i++) {
    timers.fireNext();
    await settle();
  }
  server.historyWritten = true;
  timers.fireNext();
  await settle();
  assert.equal((outcome as Outcome | null)?.kind, 'finished');
  const afterEnd = server.asks.filter((a) => a.at > endAt && a.route === 'GET /history').map((a) => a.at - endAt);
  assert.deepEqual(afterEnd, [5, 10, 20, 40], 'history asked at these ms after the end message');
  assert.ok(afterEnd.every((ms) => ms < POLL_MS));
});

test('the status broadcast after execution_success (the history write) is the moment to collect: one ask, at once', async () => {
  const { server, socket, scope, frame } = setUp();
  let outcome: Outcome | null = null;
  void new AttemptFollow(scope, socket).run().then((o) => (outcome = o));
  await settle();
  socket.push(frame('execution_success', { prompt_id: PROMPT, timestamp: 1 }));
  await settle();
  server.historyWritten = true;
  const before = server.asks.length;
  socket.push(frame('status', { status: { exec_info: { queue_remaining: 0 } } }));
  await settle();
  assert.equal((outcome as Outcome | null)?.kind, 'finished');
  const afterEnd = server.asks.slice(before);
  assert.deepEqual(
    afterEnd.map((a) => a.route),
    ['GET /history'],
    'one request: history, found',
  );
});

test('a successful run frees its workstation at its success message, before the history is written; a failed run does not', async () => {
  const ok = setUp();
  let okOutcome: Outcome | null = null;
  void new AttemptFollow(ok.scope, ok.socket).run().then((o) => (okOutcome = o));
  await settle();
  assert.equal(ok.released.length, 0, 'running: the slot is held');
  // Another prompt's success on the same socket (or a replayed one) frees nothing.
  ok.socket.push({
    ...ok.frame('execution_success', { prompt_id: PROMPT, timestamp: 1 }),
    inRun: false,
  } as FollowEvent);
  await settle();
  assert.equal(ok.released.length, 0, 'a success outside this run frees nothing');
  ok.socket.push(ok.frame('execution_success', { prompt_id: PROMPT, timestamp: 1 }));
  await settle();
  assert.deepEqual(
    ok.released.map((r) => [r.instanceId, r.attemptId]),
    [['i1', ATTEMPT]],
    'freed at execution_success',
  );
  assert.equal(okOutcome, null, 'before the history write: the attempt is still followed, its outputs not collected');
  ok.server.historyWritten = true;
  ok.timers.fireNext();
  await settle();
  assert.equal((okOutcome as Outcome | null)?.kind, 'finished');
  assert.equal(ok.released.length, 1, 'freed once');

  const failed = setUp();
  void new AttemptFollow(failed.scope, failed.socket).run();
  await settle();
  failed.socket.push(
    failed.frame('execution_error', { prompt_id: PROMPT, node_id: '3', exception_message: 'CUDA out of memory' }),
  );
  await settle();
  assert.equal(failed.released.length, 0, 'a failure keeps the slot until it is recorded (its /free goes first)');
});
