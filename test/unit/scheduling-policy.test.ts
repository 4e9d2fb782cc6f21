import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  couldFit,
  fitsNow,
  fitsWhenOneEnds,
  rankInstances,
  reservationHolds,
  starvedBySize,
  type InstanceSnapshot,
  type JobSnapshot,
} from '../../electron/engine/scheduler/policy.js';
import { retryDelayMs } from '../../electron/engine/pools/attempt/outcomes.js';

import { GB, idleGpu } from '../helpers/gpu-snapshot.js';
const inst = (o: Partial<InstanceSnapshot> & { id: string }): InstanceSnapshot => ({ ...idleGpu(o.id), ...o });
const job = (o: Partial<JobSnapshot> = {}): JobSnapshot => ({
  id: 'j',
  priority: 100,
  stage: 'motion',
  vramGb: 18,
  tags: [],
  checkpoint: null,
  previousInstanceId: null,
  oomOn: null,
  ...o,
});

test('VRAM admission counts memory held by other processes', () => {
  assert.equal(couldFit(job(), inst({ id: 'a' })), true);
  assert.equal(
    couldFit(job(), inst({ id: 'a', otherVramBytes: 8 * GB })),
    false,
    '24 GB with 8 GB foreign leaves 16 < 18',
  );
  assert.equal(couldFit(job(), inst({ id: 'a', totalVramBytes: 12 * GB })), false);
  assert.equal(couldFit(job(), inst({ id: 'a', totalVramBytes: null })), false, 'unknown VRAM is not assumed to fit');
});

test('two 18 GB jobs never share a 24 GB GPU, even with two slots (incident 5)', () => {
  const gpu = inst({ id: 'a', maxConcurrency: 2, running: 1, runningVramGb: 18 });
  assert.equal(fitsNow(job(), gpu), false);
  assert.equal(fitsNow(job({ vramGb: 4, stage: 'post' }), gpu), true, 'a small job may share it');
  assert.equal(fitsNow(job(), inst({ id: 'b', running: 1 })), false, 'concurrency 1 by default');
});

test('tags must all be carried by the instance; a per-stage override changes the requirement', () => {
  assert.equal(couldFit(job({ tags: ['i2v_video'] }), inst({ id: 'a', tags: ['img2img'] })), false);
  assert.equal(couldFit(job({ tags: ['i2v_video'] }), inst({ id: 'a', tags: ['img2img', 'i2v_video'] })), true);
  assert.equal(couldFit(job(), inst({ id: 'a', totalVramBytes: 16 * GB, vramOverrides: { motion: 14 } })), true);
});

test('choice: shortest server queue, then same checkpoint, then previous instance, then faster GPU', () => {
  const j = job({ checkpoint: 'sdxl', previousInstanceId: 'c' });
  assert.equal(rankInstances(j, [inst({ id: 'a', serverQueue: 2 }), inst({ id: 'b' })])[0]?.id, 'b');
  assert.equal(rankInstances(j, [inst({ id: 'a' }), inst({ id: 'b', lastCheckpoint: 'sdxl' })])[0]?.id, 'b');
  assert.equal(rankInstances(j, [inst({ id: 'a' }), inst({ id: 'c' })])[0]?.id, 'c');
  assert.equal(rankInstances(job(), [inst({ id: 'a', speed: 1 }), inst({ id: 'b', speed: 5 })])[0]?.id, 'b');
});

test('after an OOM the job prefers more usable VRAM and avoids the instance that ran out', () => {
  const j = job({ oomOn: 'a', vramGb: 10 });
  const order = rankInstances(j, [
    inst({ id: 'a' }),
    inst({ id: 'b', otherVramBytes: 6 * GB }),
    inst({ id: 'c', totalVramBytes: 48 * GB }),
  ]);
  assert.deepEqual(
    order.map((i) => i.id),
    ['c', 'b', 'a'],
  );
});

// Two 8 GB jobs share a 24 GB GPU; a 20 GB job fits it only empty.
const shared = (running: number[]): InstanceSnapshot =>
  inst({
    id: 'g',
    maxConcurrency: 2,
    running: running.length,
    runningVramGb: running.reduce((a, b) => a + b, 0),
    largestRunningVramGb: Math.max(0, ...running),
  });
const starvation: {
  name: string;
  job: Partial<JobSnapshot>;
  gpus: InstanceSnapshot[];
  whenOneEnds: boolean;
  starved: boolean;
}[] = [
  {
    name: 'one-slot GPU, busy: the freed GPU is empty',
    job: { vramGb: 20 },
    gpus: [inst({ id: 'g', running: 1, runningVramGb: 8, largestRunningVramGb: 8 })],
    whenOneEnds: true,
    starved: false,
  },
  {
    name: 'a small job on a shared GPU, both slots taken',
    job: { vramGb: 8 },
    gpus: [shared([8, 8])],
    whenOneEnds: true,
    starved: false,
  },
  {
    name: 'a 20 GB job beside two 8 GB jobs',
    job: { vramGb: 20 },
    gpus: [shared([8, 8])],
    whenOneEnds: false,
    starved: true,
  },
  {
    name: 'a 20 GB job beside one 4 GB job',
    job: { vramGb: 20 },
    gpus: [shared([4])],
    whenOneEnds: true,
    starved: false,
  },
  {
    name: 'a 20 GB job when one GPU of two would have room',
    job: { vramGb: 20 },
    gpus: [shared([8, 8]), { ...shared([8]), id: 'h' }],
    whenOneEnds: false,
    starved: false,
  },
  {
    name: 'a job no GPU could ever hold waits for hardware, not a reservation',
    job: { vramGb: 30 },
    gpus: [shared([8, 8])],
    whenOneEnds: false,
    starved: false,
  },
];
for (const c of starvation) {
  test(`starved by size? ${c.name}`, () => {
    assert.equal(fitsWhenOneEnds(job(c.job), c.gpus[0]!), c.whenOneEnds);
    assert.equal(starvedBySize(job(c.job), c.gpus), c.starved);
  });
}

const holds: { name: string; job: Partial<JobSnapshot>; holds: boolean }[] = [
  { name: 'the reserved job itself', job: { id: 'big', priority: 100 }, holds: false },
  { name: 'a job of the same priority', job: { priority: 100 }, holds: true },
  { name: 'a job of lower priority', job: { priority: 0 }, holds: true },
  { name: 'a rush job', job: { priority: 300 }, holds: false },
  { name: 'a high job', job: { priority: 200 }, holds: false },
];
for (const c of holds) {
  test(`a reservation for a normal job holds back ${c.name}: ${c.holds}`, () => {
    assert.equal(reservationHolds({ jobId: 'big', priority: 100 }, job(c.job)), c.holds);
    assert.equal(reservationHolds(null, job(c.job)), false, 'no reservation holds nothing');
  });
}

test('retry delay is full jitter: random(0, min(cap, base × 2^(attempt−1)))', () => {
  const p = { maxAttempts: 4, baseMs: 2000, capMs: 60_000 };
  assert.equal(
    retryDelayMs(1, p, () => 0.999999),
    1999,
  );
  assert.equal(
    retryDelayMs(3, p, () => 0.5),
    4000,
  );
  assert.equal(
    retryDelayMs(10, p, () => 0.5),
    30_000,
    'capped',
  );
  assert.equal(
    retryDelayMs(2, p, () => 0),
    0,
  );
});

test("a job's checkpoint is the template's unless a shot parameter sets the loader's input", async () => {
  const { checkpointOfJob } = await import('../../electron/engine/templates/checkpoint.js');
  const wf = {
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'base.safetensors' } },
    '3': { class_type: 'KSampler', inputs: { seed: 1 } },
  };
  assert.equal(checkpointOfJob(wf, { ckpt: '4.ckpt_name', seed: '3.seed' }, '{"seed": 5}'), 'base.safetensors');
  assert.equal(checkpointOfJob(wf, { ckpt: '4.ckpt_name' }, '{"ckpt": "hero.safetensors"}'), 'hero.safetensors');
  assert.equal(checkpointOfJob({ '1': { class_type: 'EmptyImage', inputs: {} } }, {}, '{}'), null);
});
