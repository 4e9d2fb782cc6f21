import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withRows } from '../../renderer/store/job-map.js';
import { applyEvents, type Entities } from '../../renderer/store/reducers.js';
import type { JobView } from '../../shared/domain.js';

const job = (id: string, over: Partial<JobView> = {}): JobView =>
  ({ id, state: 'queued', priority: 'normal', rank: 0, instanceId: null, progress: null, ...over }) as JobView;
const empty = (): Entities => ({ jobs: {}, progress: {}, instances: {} });
const progress = (value: number) => ({ node: '3', nodeType: 'KSampler', value, max: 20, at: value });

test('a batch of job changes updates jobs by id and says the list and counts are stale', () => {
  const { next, effects } = applyEvents(empty(), [
    { topic: 'job.changed', payload: { job: job('a') } },
    { topic: 'job.changed', payload: { job: job('a', { state: 'running', instanceId: 'i1' }) } },
  ]);
  assert.equal(next.jobs.a?.state, 'running');
  assert.deepEqual(effects, {
    listStale: true,
    countsStale: true,
    jobsTouched: true,
    peopleChanged: false,
    forecast: null,
    late: [],
  });
});

test('progress-only batches touch neither the list nor the counts', () => {
  const s: Entities = { ...empty(), jobs: { a: job('a', { state: 'running' }) } };
  const { next, effects } = applyEvents(s, [{ topic: 'job.progress', payload: { jobId: 'a', progress: progress(5) } }]);
  assert.equal(next.progress.a?.value, 5);
  assert.equal(next.jobs, s.jobs, 'the job map is not copied');
  assert.deepEqual(effects, {
    listStale: false,
    countsStale: false,
    jobsTouched: false,
    peopleChanged: false,
    forecast: null,
    late: [],
  });
});

test('a late progress frame does not bring back the bar of a finished job', () => {
  const s: Entities = { ...empty(), jobs: { a: job('a', { state: 'running' }) }, progress: { a: progress(19) } };
  const { next } = applyEvents(s, [
    { topic: 'job.changed', payload: { job: job('a', { state: 'completed' }) } },
    { topic: 'job.progress', payload: { jobId: 'a', progress: progress(20) } },
  ]);
  assert.equal(next.progress.a, undefined);
});

test('a change that keeps state, priority, rank and instance does not reload the list', () => {
  const s: Entities = { ...empty(), jobs: { a: job('a', { state: 'running', instanceId: 'i1' }) } };
  const { effects } = applyEvents(s, [
    { topic: 'job.changed', payload: { job: job('a', { state: 'running', instanceId: 'i1', attempts: 2 }) } },
  ]);
  assert.equal(effects.listStale, false);
  assert.equal(effects.countsStale, false);
});

test('a queued job becoming blocked refreshes the counts (the blocked count), not the list', () => {
  const s: Entities = { ...empty(), jobs: { a: job('a', { blocked: false }) } };
  const { effects } = applyEvents(s, [
    {
      topic: 'job.changed',
      payload: { job: job('a', { blocked: true, waitReason: 'needs tag img2img, which no workstation has' }) },
    },
  ]);
  assert.deepEqual(effects, {
    listStale: false,
    countsStale: true,
    jobsTouched: true,
    peopleChanged: false,
    forecast: null,
    late: [],
  });
});

test('instance events add, replace and remove by id; bulk changes mark everything stale', () => {
  const inst = { id: 'i1', name: 'gpu-01' } as never;
  const { next, effects } = applyEvents(empty(), [
    { topic: 'instance.changed', payload: { instance: inst } },
    { topic: 'jobs.bulkChanged', payload: { count: 500 } },
  ]);
  assert.equal(next.instances.i1?.name, 'gpu-01');
  assert.equal(effects.listStale && effects.countsStale, true);
  const removed = applyEvents(next, [{ topic: 'instance.removed', payload: { id: 'i1' } }]).next;
  assert.deepEqual(removed.instances, {});
});

test('fetched rows replace jobs and keep progress in step with their state', () => {
  const s: Entities = { ...empty(), progress: { done: progress(3) } };
  const merged = withRows(s, [
    job('done', { state: 'completed' }),
    job('run', { state: 'running', progress: progress(7) }),
  ]);
  assert.equal(merged.progress.done, undefined);
  assert.equal(merged.progress.run?.value, 7);
});

test('people changing touches no job and says so: the People panel refetches, the session is asked again', () => {
  const { next, effects } = applyEvents(empty(), [{ topic: 'people.changed', payload: { at: 1 } }]);
  assert.deepEqual(effects, {
    listStale: false,
    countsStale: false,
    jobsTouched: false,
    peopleChanged: true,
    forecast: null,
    late: [],
  });
  assert.deepEqual(next, empty());
});
