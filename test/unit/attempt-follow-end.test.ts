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
import { AttemptFollow } from '../../electron/engine/pools/comfy-lan/attempt-follow.js';
import type { FollowEvent } from '../../electron/engine/comfy/ws-events.js';
import type { Outcome } from '../../electron/engine/pools/comfy-lan/attempt-scope.js';
import { ATTEMPT, followHarness, PROMPT } from '../helpers/follow-harness.js';

const POLL_MS = 5_000;

const setUp = () => followHarness({ pollMs: POLL_MS });

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
