import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JobView } from '../../shared/domain.js';
import { JobNotifier } from '../../electron/main/notifications.js';
import { jobViewFixture } from '../helpers/job-view.js';

function job(over: Partial<JobView>): { job: JobView } {
  return {
    job: jobViewFixture({
      id: 'j1',
      project: 'Moonfall',
      episode: 'ep101',
      shot: 'sh010',
      stage: 'keyframe',
      template: 'keyframe-img2img',
      state: 'queued',
      vramGb: 10,
      enqueuedAt: 0,
      startedAt: null,
      finishedAt: null,
      updatedAt: 0,
      ...over,
    }),
  };
}

test('a rush job that completes is announced; a normal one is not', () => {
  const n = new JobNotifier();
  assert.deepEqual(n.consider(job({ priority: 'rush', state: 'completed' })), {
    jobId: 'j1',
    kind: 'rush-completed',
    title: 'Rush shot rendered',
    body: 'Moonfall ep101 sh010 · keyframe take 1',
  });
  assert.equal(n.consider(job({ id: 'j2', priority: 'high', state: 'completed' })), null);
});

test('a final failure and a timeout kill are announced with the reason; retryable failures are not', () => {
  const n = new JobNotifier();
  const failed = n.consider(job({ state: 'failed_final', stateReason: 'Out of GPU memory on gpu-01' }));
  assert.equal(failed?.kind, 'failed');
  assert.match(failed?.body ?? '', /Out of GPU memory on gpu-01/);
  assert.match(n.consider(job({ id: 'j2', state: 'timeout_kill' }))?.title ?? '', /timed out/);
  assert.equal(n.consider(job({ id: 'j3', state: 'failed_retryable' })), null);
  assert.equal(n.consider(job({ id: 'j4', state: 'cancelled' })), null);
  assert.equal(n.consider(job({ id: 'j5', state: 'running', priority: 'rush' })), null);
});

test('the same job state is announced once, but a later attempt that fails again is announced again', () => {
  const n = new JobNotifier();
  assert.ok(n.consider(job({ state: 'failed_final', attempts: 3 })));
  assert.equal(n.consider(job({ state: 'failed_final', attempts: 3 })), null);
  assert.ok(n.consider(job({ state: 'failed_final', attempts: 4 })));
});

test('payloads that are not job views are ignored', () => {
  const n = new JobNotifier();
  for (const p of [null, 42, {}, { job: { id: 'x' } }, { count: 3 }]) assert.equal(n.consider(p), null);
});
