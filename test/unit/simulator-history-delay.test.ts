// The history delay option and the machinery behind it: the default is the range the recordings
// show, bad values are refused, the sub-millisecond wait never ends early, due work is seen by the
// first request after its time (the one event loop stands in for the worker thread), and a crash
// drops both.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SimCore } from '../simulator/core.js';
import { Aborted } from '../simulator/exec-host.js';
import { PreviewStore } from '../simulator/images.js';
import { DEFAULT_HISTORY_DELAY_MS, parseHistoryDelay, resolveOptions } from '../simulator/options.js';
import { withTimeout } from '../simulator/testing/ws-clients.js';

const core = (): SimCore =>
  new SimCore(resolveOptions(), {
    output: '/nonexistent',
    input: '/nonexistent',
    temp: '/nonexistent',
    previews: new PreviewStore(),
  });

test('the default history delay is the recorded 0–0.8 ms; a number is fixed, a pair is a range', () => {
  assert.deepEqual(DEFAULT_HISTORY_DELAY_MS, [1, 6]);
  assert.deepEqual(resolveOptions().historyDelayMs, [1, 6]);
  assert.deepEqual(resolveOptions({ historyDelayMs: 0 }).historyDelayMs, [0, 0]);
  assert.deepEqual(resolveOptions({ historyDelayMs: 3 }).historyDelayMs, [3, 3]);
  assert.deepEqual(resolveOptions({ historyDelayMs: [1, 4] }).historyDelayMs, [1, 4]);
});

test('a negative, reversed or non-finite history delay is refused', () => {
  assert.throws(() => resolveOptions({ historyDelayMs: -1 }), /historyDelayMs/);
  assert.throws(() => resolveOptions({ historyDelayMs: [5, 2] }), /historyDelayMs/);
  assert.throws(() => resolveOptions({ historyDelayMs: Number.NaN }), /historyDelayMs/);
});

test('the --history-delay-ms text is A (fixed) or A,B (a range), checked like the option', () => {
  assert.equal(parseHistoryDelay('2'), 2);
  assert.deepEqual(parseHistoryDelay('0.5, 3'), [0.5, 3]);
  assert.throws(() => parseHistoryDelay('3,1'), /historyDelayMs/);
  assert.throws(() => parseHistoryDelay('x'), /historyDelayMs/);
  assert.throws(() => parseHistoryDelay('1,2,3'), /A or A,B/);
});

/** A clock that moves only when read, 0.05 ms a read: the waits are judged on it, not on the wall. */
function steppingClock(): { now: () => number } {
  let t = 1000;
  return { now: () => (t += 0.05) };
}

test('the precise wait never resolves before its time, under a millisecond and over several', async () => {
  const c = core();
  const clock = steppingClock();
  c.now = clock.now;
  for (const ms of [0.3, 0.8, 4.5]) {
    const t0 = clock.now();
    await withTimeout(c.waitPrecisely(ms), 5000, `wait ${ms} ms`);
    const at = clock.now();
    assert.ok(at - t0 >= ms, `resolved at +${(at - t0).toFixed(2)} ms of its clock for a ${ms} ms wait`);
  }
});

test('a crash (wipe) rejects a precise wait in progress with Aborted', async () => {
  const c = core();
  const waiting = c.waitPrecisely(1000);
  c.wipe();
  await assert.rejects(withTimeout(waiting, 5000, 'aborted wait'), Aborted);
});

test('due work runs for the first request after its time even while the event loop is busy, never before', async () => {
  const c = core();
  let t = 1000;
  c.now = () => t;
  let ran = 0;
  const inWindow: string[] = [];
  c.onRequestInWindow = (id, path) => inWindow.push(`${id} ${path}`);
  const done = c.runAfter(1, 'p', () => {
    ran++;
  });
  c.settleDue('/history/p');
  assert.equal(ran, 0, 'a request before the due time sees the old state');
  assert.deepEqual(inWindow, ['p /history/p'], 'and the tap reports it');
  t += 2; // the loop was busy past the due time: no timer could fire
  c.settleDue('/history/p');
  assert.equal(ran, 1, 'a request after the due time sees the work done, before it reads anything');
  assert.equal(inWindow.length, 1, 'that one was not in a window');
  await withTimeout(done, 5000, 'runAfter');
  assert.equal(ran, 1, 'the work runs once');
});

test('a crash before the due time drops the work and rejects with Aborted', async () => {
  const c = core();
  let ran = false;
  const done = c.runAfter(1000, 'p', () => {
    ran = true;
  });
  c.wipe();
  c.settleDue('/history/p');
  await assert.rejects(withTimeout(done, 5000, 'dropped work'), Aborted);
  assert.equal(ran, false);
});
