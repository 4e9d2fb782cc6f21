import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  displaces,
  mayWaitBehind,
  placeStartsAt,
  startsTooSoon,
  waitsForDisplaced,
} from '../../electron/engine/scheduler/prefetch.js';
import type { InstanceSnapshot, JobSnapshot } from '../../electron/engine/scheduler/policy.js';

const GB = 1024 ** 3;
/** A 24 GB one-slot GPU running a normal 10 GB job. */
const busy = (o: Partial<InstanceSnapshot> = {}): InstanceSnapshot => ({
  id: 'g',
  name: 'g',
  tags: [],
  maxConcurrency: 1,
  running: 1,
  runningVramGb: 10,
  largestRunningVramGb: 10,
  totalVramBytes: 24 * GB,
  otherVramBytes: 0,
  serverQueue: 1,
  lastCheckpoint: null,
  vramOverrides: {},
  speed: 1,
  runningPriority: 100,
  waiting: null,
  ...o,
});
const job = (o: Partial<JobSnapshot> = {}): JobSnapshot => ({
  id: 'j',
  priority: 100,
  rank: 0,
  stage: 'keyframe',
  vramGb: 10,
  tags: [],
  checkpoint: null,
  previousInstanceId: null,
  oomOn: null,
  ...o,
});
const waiting = (priority: number, rank = 0, displacing = false) => ({ attemptId: 'w', priority, rank, displacing });

test('a job may wait behind the running prompt: every slot taken, nothing waiting, its priority or lower, fitting the GPU on its own', () => {
  const cases: [string, JobSnapshot, InstanceSnapshot, boolean][] = [
    ['same priority, fits', job(), busy(), true],
    ['lower priority', job({ priority: 0 }), busy(), true],
    ['higher priority: not tied to this GPU', job({ priority: 300 }), busy(), false],
    ['a free slot: it takes the slot instead', job(), busy({ maxConcurrency: 2 }), false],
    ['idle GPU', job(), busy({ running: 0, runningVramGb: 0, largestRunningVramGb: 0, runningPriority: null }), false],
    ['one already waits there', job(), busy({ waiting: waiting(100) }), false],
    ['18 GB after a 10 GB one on 24 GB: they never run together, so it fits', job({ vramGb: 18 }), busy(), true],
    ['too big for the GPU alone', job({ vramGb: 30 }), busy(), false],
    ['other processes hold too much', job({ vramGb: 18 }), busy({ otherVramBytes: 8 * GB }), false],
    ['a tag the GPU lacks', job({ tags: ['i2v_video'] }), busy(), false],
  ];
  for (const [name, j, i, want] of cases) assert.equal(mayWaitBehind(j, i), want, name);
});

test('a job ahead of the waiting one in the order takes its place, one displacement at a time', () => {
  const cases: [string, JobSnapshot, InstanceSnapshot, boolean][] = [
    ['rush over a waiting normal', job({ priority: 300 }), busy({ waiting: waiting(100) }), true],
    ['same priority, moved to the top (lower rank)', job({ rank: -1 }), busy({ waiting: waiting(100, 0) }), true],
    ['same priority and rank: waits its turn', job(), busy({ waiting: waiting(100) }), false],
    ['lower priority', job({ priority: 0 }), busy({ waiting: waiting(100) }), false],
    ['nothing waits', job({ priority: 300 }), busy(), false],
    ['already being displaced', job({ priority: 300 }), busy({ waiting: waiting(100, 0, true) }), false],
    ['could not run there', job({ priority: 300, vramGb: 30 }), busy({ waiting: waiting(100) }), false],
  ];
  for (const [name, j, i, want] of cases) assert.equal(displaces(j, i), want, name);
});

test('a waiting place starts at the expected end of the prompt before it: never before now, unknown after every known one', () => {
  assert.equal(placeStartsAt(busy({ freesAt: 1_500 }), 1_000), 1_500);
  assert.equal(placeStartsAt(busy({ freesAt: 900 }), 1_000), 1_000, 'overdue: now');
  assert.equal(placeStartsAt(busy({ freesAt: null }), 1_000), Number.POSITIVE_INFINITY);
});

test('a lower prompt waiting elsewhere is displaced when it would start before the job, or too near to tell', () => {
  const now = 1_000;
  const cases: [string, number, number, boolean][] = [
    [
      'the job waits for the first slot that frees (no place of its own): every one',
      5_000,
      Number.POSITIVE_INFINITY,
      true,
    ],
    ["its place starts before the job's", 1_200, 1_400, true],
    ['within 100 ms after it (ends are estimates)', 1_480, 1_400, true],
    ['within a quarter of a long wait after it', 12_000, 10_000, true],
    ["well after the job's place: it keeps its place", 2_000, 1_400, false],
    ['its end is not known yet', Number.POSITIVE_INFINITY, 1_400, true],
  ];
  for (const [name, other, own, want] of cases) assert.equal(startsTooSoon(other, own, now), want, name);
});

test('a job ahead of a prompt being displaced waits for that place instead of asking again', () => {
  assert.equal(waitsForDisplaced(job({ priority: 300 }), busy({ waiting: waiting(100, 0, true) })), true);
  assert.equal(
    waitsForDisplaced(job({ priority: 300 }), busy({ waiting: waiting(100, 0, false) })),
    false,
    'not asked yet: it displaces',
  );
  assert.equal(
    waitsForDisplaced(job({ priority: 0 }), busy({ waiting: waiting(100, 0, true) })),
    false,
    'not ahead of it',
  );
});
