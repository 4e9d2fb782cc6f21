/**
 * The seconds a queued job's burst wait counts (pools/runpod/burst-wait.ts): from the later of the
 * job last becoming dispatchable (queued, unblocked) and the farm last becoming able to dispatch
 * (start, resume, a storage hold's end); nothing while the farm is paused, stopped or held, or the
 * job blocked. Table-tested, pure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dispatchableWaitS } from '../../electron/engine/pools/runpod/burst-wait.js';

test("a burst wait counts from the later of the job's last becoming dispatchable and the farm's, and not at all while paused or blocked", () => {
  const cases: [string, number | null, number | null, number, number][] = [
    ['queued after the farm started: since queued', 10_000, 0, 70_000, 60],
    ['queued before an 11.5-minute pause: since the resume', 0, 690_000, 700_000, 10],
    ['released from hold after the resume: since the release', 800_000, 690_000, 810_000, 10],
    ['paused now: nothing counts', 0, null, 900_000, 0],
    ['unblocked after a 20-minute block: since the unblocking', 1_200_000, 0, 1_230_000, 30],
    ['blocked now: nothing counts', null, 0, 900_000, 0],
    ['a clock that went back: never negative', 50_000, 0, 40_000, 0],
  ];
  for (const [what, jobSince, farmSince, now, expected] of cases)
    assert.equal(dispatchableWaitS(jobSince, farmSince, now), expected, what);
});
