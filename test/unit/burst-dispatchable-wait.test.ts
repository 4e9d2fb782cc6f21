/**
 * The seconds a queued job's burst wait counts (pools/runpod/burst-wait.ts): from the later of the
 * job last entering the queue and the farm last beginning to dispatch; nothing while the farm is
 * paused or stopped. Table-tested, pure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dispatchableWaitS } from '../../electron/engine/pools/runpod/burst-wait.js';

test("a burst wait counts from the later of queue entry and the farm's last resume, and not at all while paused", () => {
  const cases: [string, number, number | null, number, number][] = [
    ['queued after the farm started: since queued', 10_000, 0, 70_000, 60],
    ['queued before an 11.5-minute pause: since the resume', 0, 690_000, 700_000, 10],
    ['released from hold after the resume: since the release', 800_000, 690_000, 810_000, 10],
    ['paused now: nothing counts', 0, null, 900_000, 0],
    ['a clock that went back: never negative', 50_000, 0, 40_000, 0],
  ];
  for (const [what, queuedAt, since, now, expected] of cases)
    assert.equal(dispatchableWaitS(queuedAt, since, now), expected, what);
});
