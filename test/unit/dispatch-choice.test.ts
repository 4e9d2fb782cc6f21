/**
 * One pass's choice (dispatch-choice.ts) as a table: the places a pass sees (free GPUs start now;
 * the place behind a running prompt starts at its expected end, empty or held by a waiting job)
 * and jobs in dispatch order (priorities mixed, a retry whose backoff just ended) → which job goes
 * where, and which waiting prompts are asked to give their place. Pure: no clock, no I/O.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { choose, placesFor } from '../../electron/engine/scheduler/dispatch-choice.js';
import type { InstanceSnapshot, JobSnapshot } from '../../electron/engine/scheduler/policy.js';
import type { JobRow } from '../../electron/engine/store/job-rows.js';

import { GB, idleGpu } from '../helpers/gpu-snapshot.js';
const NOW = 10_000;
const RUSH = 300;
const LOW = 0;

/** A 24 GB one-slot GPU, idle. */
const gpu = (id: string, o: Partial<InstanceSnapshot> = {}): InstanceSnapshot => ({
  ...idleGpu(id),
  runningPriority: null,
  waiting: null,
  freesAt: null,
  ...o,
});
/** The same GPU running a 10 GB prompt of `priority`, expected to end at `freesAt`. */
const busy = (
  id: string,
  priority: number,
  freesAt: number | null,
  o: Partial<InstanceSnapshot> = {},
): InstanceSnapshot =>
  gpu(id, {
    running: 1,
    runningVramGb: 10,
    largestRunningVramGb: 10,
    serverQueue: 1,
    runningPriority: priority,
    freesAt,
    ...o,
  });
const waitingJob = (priority: number, attemptId = `w-${priority}`) => ({
  attemptId,
  priority,
  rank: 0,
  displacing: false,
});

interface Job {
  id: string;
  priority: number;
  vramGb?: number;
  tags?: string[];
  attempts?: number;
  capableOn?: string[];
  checkpoint?: string;
}
const row = (j: Job) => ({ id: j.id, priority: j.priority, rank: 0, attempts: j.attempts ?? 0 }) as JobRow;
const snapOf = (j: Job): JobSnapshot => ({
  id: j.id,
  priority: j.priority,
  rank: 0,
  stage: 'keyframe',
  vramGb: j.vramGb ?? 10,
  tags: j.tags ?? [],
  checkpoint: j.checkpoint ?? null,
  previousInstanceId: null,
  oomOn: null,
});

function run(instances: InstanceSnapshot[], jobs: Job[], prefetch = true) {
  const snaps = new Map(instances.map((s) => [s.id, s]));
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const unplaced: string[] = [];
  const { assignments, displacements } = choose(snaps, jobs.map(row), {
    prefetch,
    now: NOW,
    claiming: new Set(),
    capable: (r) => new Set(byId.get(r.id)?.capableOn ?? instances.map((s) => s.id)),
    snapshot: (r) => snapOf(byId.get(r.id) as Job),
    allows: () => true,
    unplaced: (r) => unplaced.push(r.id),
  });
  return {
    placed: Object.fromEntries(assignments.map((a) => [a.job.id, a.instanceId])),
    displaced: displacements.map((d) => `${d.instanceId}:${d.attemptId}`),
    unplaced,
  };
}

interface Case {
  name: string;
  instances: InstanceSnapshot[];
  jobs: Job[];
  prefetch?: boolean;
  placed: Record<string, string>;
  displaced?: string[];
}

const CASES: Case[] = [
  {
    name: 'issue 31: a free GPU and an empty place behind a running prompt — the rush gets the free GPU, the low job the waiting place',
    instances: [busy('g1', LOW, NOW + 300), gpu('g0')],
    jobs: [
      { id: 'rush', priority: RUSH },
      { id: 'low', priority: LOW },
    ],
    placed: { rush: 'g0', low: 'g1' },
  },
  {
    name: 'a retry whose backoff just ended comes in the same order: below the rush, it gets the earliest place the rush leaves',
    instances: [gpu('g0'), busy('g1', LOW, NOW + 400)],
    jobs: [
      { id: 'rush', priority: RUSH },
      { id: 'retry', priority: LOW, attempts: 1 },
      { id: 'low', priority: LOW },
    ],
    // g0's end is not known yet (the rush just took it): its waiting place comes last.
    placed: { rush: 'g0', retry: 'g1', low: 'g0' },
  },
  {
    name: 'a lower job placed in the same pass as the rush does not take a waiting place that starts about when the rush does (it could start first)',
    instances: [gpu('g0'), busy('g1', LOW, NOW + 20)],
    jobs: [
      { id: 'rush', priority: RUSH },
      { id: 'retry', priority: LOW, attempts: 1 },
    ],
    placed: { rush: 'g0', retry: 'g0' },
  },
  {
    name: 'a rush sent by an earlier pass and not started yet counts the same: the low job does not take a waiting place that starts about now',
    instances: [busy('g0', RUSH, NOW + 600, { startingPriority: RUSH }), busy('g1', LOW, NOW + 20)],
    jobs: [{ id: 'low', priority: LOW }],
    placed: { low: 'g0' },
  },
  {
    name: 'the waiting places fill by the expected end of the prompt they wait behind, earliest first',
    instances: [busy('late', LOW, NOW + 500), busy('soon', LOW, NOW + 50), busy('mid', LOW, NOW + 200)],
    jobs: [
      { id: 'a', priority: LOW },
      { id: 'b', priority: LOW },
      { id: 'c', priority: LOW },
    ],
    placed: { a: 'soon', b: 'mid', c: 'late' },
  },
  {
    name: "among waiting places, the GPU holding the job's model first (a reload costs more than the spread of the ends)",
    instances: [
      busy('cold', LOW, NOW + 50, { lastCheckpoint: 'B' }),
      busy('warm', LOW, NOW + 300, { lastCheckpoint: 'A' }),
    ],
    jobs: [
      { id: 'a', priority: LOW, checkpoint: 'A' },
      { id: 'b', priority: LOW, checkpoint: 'B' },
    ],
    placed: { a: 'warm', b: 'cold' },
  },
  {
    name: 'a place with no run estimate yet comes after every place with one',
    instances: [busy('unknown', LOW, null), busy('known', LOW, NOW + 900)],
    jobs: [
      { id: 'a', priority: LOW },
      { id: 'b', priority: LOW },
    ],
    placed: { a: 'known', b: 'unknown' },
  },
  {
    name: 'no free GPU: the rush is not tied behind a lower prompt; every lower prompt waiting where it could run gives its place (any may start first)',
    instances: [
      busy('g0', LOW, NOW + 100, { waiting: waitingJob(LOW, 'w0') }),
      busy('g1', LOW, NOW + 400, { waiting: waitingJob(LOW, 'w1') }),
    ],
    jobs: [
      { id: 'rush', priority: RUSH },
      { id: 'low', priority: LOW },
    ],
    placed: {},
    displaced: ['g0:w0', 'g1:w1'],
  },
  {
    name: 'no free GPU and empty waiting places: the rush waits for the first slot; the low job behind it may not take a waiting place first',
    instances: [busy('g0', LOW, NOW + 100), busy('g1', LOW, NOW + 400)],
    jobs: [
      { id: 'rush', priority: RUSH },
      { id: 'low', priority: LOW },
    ],
    placed: {},
  },
  {
    name: 'a job of the running priority waits behind the earliest end, and displaces a lower one waiting elsewhere that would start before it',
    instances: [busy('g0', RUSH, NOW + 300), busy('g1', LOW, NOW + 100, { waiting: waitingJob(LOW, 'w1') })],
    jobs: [{ id: 'rush', priority: RUSH }],
    placed: {},
    displaced: ['g1:w1'],
  },
  {
    name: "a lower prompt waiting where it would start well after the job's own place keeps it",
    instances: [busy('g0', RUSH, NOW + 100), busy('g1', LOW, NOW + 2_000, { waiting: waitingJob(LOW, 'w1') })],
    jobs: [{ id: 'rush', priority: RUSH }],
    placed: { rush: 'g0' },
  },
  {
    name: 'the rush does not fit the free GPU (VRAM): the low job may take it, and the rush displaces where it fits',
    instances: [
      gpu('small', { totalVramBytes: 12 * GB }),
      busy('big', LOW, NOW + 300, { waiting: waitingJob(LOW, 'wb') }),
    ],
    jobs: [
      { id: 'rush', priority: RUSH, vramGb: 18 },
      { id: 'low', priority: LOW },
    ],
    placed: { low: 'small' },
    displaced: ['big:wb'],
  },
  {
    name: "capability: the rush's nodes are only on g1 — it waits there; the free g0 goes to the low job",
    instances: [gpu('g0'), busy('g1', LOW, NOW + 300)],
    jobs: [
      { id: 'rush', priority: RUSH, capableOn: ['g1'] },
      { id: 'low', priority: LOW },
    ],
    placed: { low: 'g0' },
  },
  {
    name: 'a tag the free GPU lacks: the rush takes the GPU that has it even when it is busy later',
    instances: [gpu('plain'), gpu('video', { tags: ['i2v_video'] })],
    jobs: [
      { id: 'low', priority: LOW },
      { id: 'rush', priority: RUSH, tags: ['i2v_video'] },
    ].sort((a, b) => b.priority - a.priority),
    placed: { rush: 'video', low: 'plain' },
  },
  {
    name: 'prefetch off: only free GPUs; nothing waits behind a running prompt and nothing is displaced',
    instances: [gpu('g0'), busy('g1', LOW, NOW + 100)],
    jobs: [
      { id: 'rush', priority: RUSH },
      { id: 'low', priority: LOW },
    ],
    prefetch: false,
    placed: { rush: 'g0' },
  },
];

test('one pass gives each job, highest first, the place that starts earliest among those it fits', () => {
  for (const c of CASES) {
    const got = run(
      c.instances.map((s) => ({ ...s, waiting: s.waiting ? { ...s.waiting } : null })),
      c.jobs,
      c.prefetch,
    );
    assert.deepEqual(got.placed, c.placed, c.name);
    assert.deepEqual(got.displaced, c.displaced ?? [], `${c.name} (displaced)`);
  }
});

test('the places a job fits, in order: a free GPU now, then waiting places by when they start (an overdue end counts as now)', () => {
  const snaps = new Map(
    [busy('overdue', LOW, NOW - 50), busy('later', LOW, NOW + 80), gpu('free')].map((s) => [s.id, s]),
  );
  const places = placesFor(snapOf({ id: 'j', priority: LOW }), snaps, true, NOW, () => true);
  assert.deepEqual(
    places.map((p) => `${p.inst.id}:${p.kind}@${p.startsAt - NOW}`),
    ['free:free@0', 'overdue:behind@0', 'later:behind@80'],
  );
});

test('a pass places at most maxAssignments jobs, the first in dispatch order, and says it stopped short', () => {
  const instances = ['g0', 'g1', 'g2', 'g3'].map((id) => gpu(id));
  const jobs: Job[] = ['a', 'b', 'c', 'd'].map((id, i) => ({ id, priority: RUSH - i }));
  const snaps = new Map(instances.map((s) => [s.id, s]));
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const deps = {
    prefetch: true,
    now: NOW,
    claiming: new Set<string>(),
    capable: () => new Set(instances.map((s) => s.id)),
    snapshot: (r: JobRow) => snapOf(byId.get(r.id) as Job),
    allows: () => true,
    unplaced: () => undefined,
  };
  const capped = choose(snaps, jobs.map(row), { ...deps, maxAssignments: 2 });
  assert.deepEqual(
    capped.assignments.map((a) => a.job.id),
    ['a', 'b'],
  );
  assert.equal(capped.capped, true);
  // The next pass over the same snapshots (the slots given are held there) goes on from the rest.
  const next = choose(snaps, jobs.slice(2).map(row), { ...deps, maxAssignments: 2 });
  assert.deepEqual(
    next.assignments.map((a) => a.job.id),
    ['c', 'd'],
  );
  assert.equal(
    new Set([...capped.assignments, ...next.assignments].map((a) => a.instanceId)).size,
    4,
    'four GPUs, one job each',
  );
  assert.equal(choose(new Map(instances.map((s) => [s.id, { ...s, running: 0 }])), jobs.map(row), deps).capped, false);
});
