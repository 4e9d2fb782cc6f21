/**
 * The PostgreSQL bridge's wait for an answer: a wake-up with the flag still unset (the previous
 * answer's late notify) is not an answer, so the engine's thread keeps waiting for the flag.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { waitForFlag } from '../../electron/engine/store/postgres/sync-bridge.js';

// Plain JS in the worker: waits until the engine thread is asleep on the flag, wakes it without
// setting the flag (a stale notify), then after a pause sets the flag and wakes it for real.
const STALE_THEN_ANSWER = `
const { workerData } = require('node:worker_threads');
const flag = new Int32Array(workerData);
const nap = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
while (Atomics.notify(flag, 0) === 0) nap(1);
nap(200);
Atomics.store(flag, 0, 1);
Atomics.notify(flag, 0);
`;

test('a wake-up without the answer flag set (a late notify) does not end the wait for the answer', {
  timeout: 30_000,
}, async () => {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(STALE_THEN_ANSWER, { eval: true, workerData: flag.buffer });
  try {
    const answered = waitForFlag(flag, 20_000);
    assert.equal(answered, true, 'the wait ended on the answer, not on its deadline');
    assert.equal(Atomics.load(flag, 0), 1, 'the wait ended only once the flag was set');
  } finally {
    await worker.terminate();
  }
});

test('the wait for the answer gives up when the flag is never set', { timeout: 30_000 }, () => {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  assert.equal(waitForFlag(flag, 50), false);
});
