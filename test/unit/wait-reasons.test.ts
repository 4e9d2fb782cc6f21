import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JobSnapshot } from '../../electron/engine/scheduler/policy.js';
import {
  explainWait,
  instanceWaitReason,
  type InstanceFacts,
  type WaitKind,
  type WaitLasting,
} from '../../electron/engine/views/wait-reasons.js';

import { GB, idleGpu } from '../helpers/gpu-snapshot.js';
const inst = (o: Partial<InstanceFacts> = {}): InstanceFacts => ({
  ...idleGpu('i1'),
  name: 'gpu-01',
  tags: ['img2img'],
  adminState: 'active',
  health: 'idle',
  capabilityProblems: [],
  nodeListLoaded: true,
  reservedFor: null,
  quarantinedUntil: null,
  lastAnswerAt: 0,
  ...o,
});
const job = (o: Partial<JobSnapshot> = {}): JobSnapshot => ({
  id: 'job-1',
  priority: 100,
  stage: 'keyframe',
  vramGb: 10,
  tags: ['img2img'],
  checkpoint: null,
  previousInstanceId: null,
  oomOn: null,
  ...o,
});

const cases: {
  name: string;
  inst: Partial<InstanceFacts>;
  job?: Partial<JobSnapshot>;
  kind: WaitKind;
  lasting: WaitLasting;
  text: RegExp;
}[] = [
  { name: 'a tag it lacks', inst: { tags: [] }, kind: 'missing_tag', lasting: 'never', text: /lacks tag img2img/ },
  {
    name: 'too little VRAM in all',
    inst: { totalVramBytes: 12 * GB },
    job: { vramGb: 18 },
    kind: 'vram_total',
    lasting: 'never',
    text: /has 12 GB of VRAM in all; the job needs 18 GB/,
  },
  {
    name: 'a node it lacks',
    inst: { capabilityProblems: ['node `VHS_VideoCombine` is not installed'] },
    kind: 'capability',
    lasting: 'never',
    text: /VHS_VideoCombine/,
  },
  {
    name: 'disabled',
    inst: { adminState: 'disabled', health: 'disabled' },
    kind: 'disabled',
    lasting: 'operator',
    text: /is disabled/,
  },
  {
    name: 'draining',
    inst: { adminState: 'draining', health: 'draining' },
    kind: 'draining',
    lasting: 'operator',
    text: /draining/,
  },
  {
    name: 'quarantined',
    inst: { health: 'quarantined', quarantinedUntil: Date.UTC(2026, 0, 1, 10, 0) },
    kind: 'quarantined',
    lasting: 'now',
    text: /quarantined until/,
  },
  { name: 'offline', inst: { health: 'offline' }, kind: 'offline', lasting: 'now', text: /is offline \(last answer/ },
  {
    name: 'not answering',
    inst: { health: 'unhealthy', lastAnswerAt: null },
    kind: 'unhealthy',
    lasting: 'now',
    text: /^does not answer$/,
  },
  {
    name: 'never probed',
    inst: { health: 'unknown', totalVramBytes: null },
    kind: 'unknown',
    lasting: 'now',
    text: /has not answered a probe yet/,
  },
  {
    name: 'a model it lacks',
    inst: { capabilityProblems: ['model `hero.safetensors` (CheckpointLoaderSimple.ckpt_name) is not available'] },
    kind: 'capability',
    lasting: 'never',
    text: /hero\.safetensors/,
  },
  {
    name: 'node list not loaded',
    inst: { capabilityProblems: null, nodeListLoaded: false },
    kind: 'node_list_unknown',
    lasting: 'now',
    text: /node list/,
  },
  {
    name: 'node list stored but not loaded in this run',
    inst: { nodeListLoaded: false },
    kind: 'node_list_unknown',
    lasting: 'now',
    text: /node list/,
  },
  {
    name: 'VRAM held by other processes',
    inst: { otherVramBytes: 16 * GB },
    kind: 'vram_other',
    lasting: 'now',
    text: /other processes hold 16 GB/,
  },
  {
    name: 'reserved for another job',
    inst: { reservedFor: { jobId: 'abcdef12-0000', priority: 100 } },
    kind: 'reserved',
    lasting: 'now',
    text: /kept free for job abcdef12/,
  },
  {
    name: 'its slot taken',
    inst: { running: 1, health: 'busy' },
    kind: 'busy',
    lasting: 'now',
    text: /1 of 1 slot in use/,
  },
  {
    name: 'VRAM taken by what runs there',
    inst: { running: 1, maxConcurrency: 2, runningVramGb: 18, health: 'busy' },
    kind: 'busy',
    lasting: 'now',
    text: /6 GB free beside/,
  },
];

for (const c of cases) {
  test(`a workstation says why it cannot take a job: ${c.name}`, () => {
    const w = instanceWaitReason(job(c.job), inst(c.inst));
    assert.ok(w, 'a reason');
    assert.equal(w.kind, c.kind);
    assert.equal(w.lasting, c.lasting);
    assert.match(w.text, c.text);
  });
}

test('a workstation that can take the job now gives no reason', () => {
  assert.equal(instanceWaitReason(job(), inst()), null);
});

test('a reservation never holds back a job of higher priority, nor the job it is for', () => {
  const reserved = inst({ reservedFor: { jobId: 'big', priority: 100 } });
  assert.equal(instanceWaitReason(job({ priority: 300 }), reserved), null, 'a rush job may take it');
  assert.equal(instanceWaitReason(job({ id: 'big' }), reserved), null, 'the reserved job may take it');
  assert.equal(instanceWaitReason(job({ priority: 0 }), reserved)?.kind, 'reserved', 'a low job is held');
});

test('a lasting reason comes before a passing one: an offline server that lacks the tag says the tag', () => {
  assert.equal(instanceWaitReason(job(), inst({ health: 'offline', tags: [] }))?.kind, 'missing_tag');
});

test('the farm answer names a busy workstation before one that does not answer: a queued row does not read as waiting on the offline one', () => {
  const w = explainWait(job({ tags: [] }), [
    inst({ id: 'i0', name: 'compositing-annex-12', health: 'offline', lastAnswerAt: null }),
    inst({ id: 'i1', name: 'gpu-01', running: 1 }),
    inst({ id: 'i2', name: 'gpu-02', adminState: 'disabled' }),
  ]);
  assert.equal(w.summary, 'gpu-01 is busy (1 of 1 slot in use); compositing-annex-12 is offline; gpu-02 is disabled');
});

test('the farm answer: a tag nobody has is one sentence; any workstation that may free up keeps the job waiting', () => {
  const none = explainWait(job(), [inst({ tags: [] }), inst({ id: 'i2', name: 'gpu-02', tags: ['i2v_video'] })]);
  assert.equal(none.lasting, 'never');
  assert.equal(none.summary, 'needs tag img2img, which no workstation has');
  const mixed = explainWait(job(), [inst({ tags: [] }), inst({ id: 'i2', name: 'gpu-02', running: 1 })]);
  assert.equal(mixed.lasting, 'now');
  assert.match(
    mixed.summary,
    /^gpu-02 is busy \(1 of 1 slot in use\); gpu-01 lacks tag img2img$/,
    'what passes by itself first',
  );
  const operator = explainWait(job(), [inst({ tags: [] }), inst({ id: 'i2', name: 'gpu-02', adminState: 'disabled' })]);
  assert.equal(operator.lasting, 'operator');
  assert.equal(explainWait(job(), []).summary, 'no workstation is registered');
  assert.equal(explainWait(job(), [inst()]).dispatchable, true);
});
