/**
 * The renderer's job map has one writer (store/jobs-slice.ts `upsertJobs`): whatever brings a job's
 * row — an event, a fetched page, an action's answer, an undo, select-all, the drawer's fetch — its
 * live progress follows the row. Driven through the real store with a client that answers the few
 * contract methods these paths call (the transport is the renderer's edge; no engine is needed to
 * show what the store does with an answer).
 */
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiInput, ApiMethod, ApiOutputs } from '../../shared/api.js';
import type { FarmStatus, JobProgress, JobView } from '../../shared/domain.js';
import type { ShotfarmClient } from '../../renderer/client/client.js';
import { createAppStore, type AppStore } from '../../renderer/store/app-store.js';

const job = (id: string, over: Partial<JobView> = {}): JobView =>
  ({
    id,
    state: 'queued',
    priority: 'normal',
    rank: 0,
    instanceId: null,
    progress: null,
    shot: `sh${id}`,
    stage: 'kf',
    take: 1,
    ...over,
  }) as JobView;
const frame = (value: number): JobProgress =>
  ({ node: '3', nodeType: 'KSampler', value, max: 20, at: value }) as JobProgress;

type Answers = { [M in ApiMethod]?: (input: ApiInput<M>) => ApiOutputs[M] };

/** A client answering `answers` (and an empty queue and status for the refetches an action triggers). */
function clientWith(answers: Answers): ShotfarmClient {
  const base: Answers = {
    'jobs.list': () => ({ rows: [], total: 0 }),
    'farm.status': () => ({ jobsByState: {}, instances: [] }) as unknown as FarmStatus,
  };
  const all = { ...base, ...answers } as Record<string, (input: unknown) => unknown>;
  return {
    call: (<M extends ApiMethod>(method: M, input: ApiInput<M>) => {
      const answer = all[method];
      return answer
        ? Promise.resolve(answer(input) as ApiOutputs[M])
        : Promise.reject(new Error(`unexpected call ${method}`));
    }) as ShotfarmClient['call'],
    subscribe: () => () => undefined,
    onConnection: () => () => undefined,
    info: () => Promise.resolve({ name: 'test', demoLabel: null, tokenRequired: false, exportDir: null }),
    assetUrl: () => null,
    exportUrl: () => null,
  };
}

const stores: AppStore[] = [];

function storeWith(answers: Answers): AppStore {
  const store = createAppStore(clientWith(answers));
  stores.push(store);
  return store;
}

// A toast's timer would hold the test process for seconds after the last test.
afterEach(() => {
  for (const s of stores.splice(0)) for (const t of s.getState().toasts) s.getState().dismiss(t.id);
});

/** A store where job `a` renders on gpu-01 at step 15 of 20. */
function renderingStore(answers: Answers): AppStore {
  const store = storeWith(answers);
  store.getState().applyBatch([
    { topic: 'job.changed', payload: { job: job('a', { state: 'running', instanceId: 'i1' }) } },
    { topic: 'job.progress', payload: { jobId: 'a', progress: frame(15) } },
  ]);
  assert.equal(store.getState().progress.a?.value, 15);
  return store;
}

/** Resolves once `done` holds of the store (checked on every change). */
function until(store: AppStore, done: (s: ReturnType<AppStore['getState']>) => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (done(store.getState())) return resolve();
    const off = store.subscribe((s) => {
      if (done(s)) {
        off();
        resolve();
      }
    });
  });
}

test('a cancelled job loses its progress bar with the answer to the cancel, before any event', async () => {
  const store = renderingStore({ 'jobs.cancel': ({ ids }) => ids.map((id) => job(id, { state: 'cancelled' })) });
  await store.getState().runActionOn(['a'], 'cancel');
  // Cancelling a rendering job asks first.
  assert.ok(store.getState().confirm, 'the cancel asks first');
  store.getState().answer(true);
  await until(store, (s) => s.jobs.a?.state === 'cancelled');
  assert.equal(store.getState().progress.a, undefined, 'the row is cancelled, so its bar is gone');
});

test("a cancelled job retried and running again shows its new attempt's progress, not the old bar", async () => {
  const store = renderingStore({
    'jobs.cancel': ({ ids }) => ids.map((id) => job(id, { state: 'cancelled' })),
    'jobs.retry': ({ ids }) => ids.map((id) => job(id, { state: 'queued' })),
  });
  await store.getState().runActionOn(['a'], 'cancel');
  store.getState().answer(true);
  await until(store, (s) => s.jobs.a?.state === 'cancelled');
  await store.getState().runActionOn(['a'], 'retry');
  assert.equal(store.getState().jobs.a?.state, 'queued');
  store
    .getState()
    .applyBatch([
      { topic: 'job.changed', payload: { job: job('a', { state: 'running', instanceId: 'i1', progress: frame(1) }) } },
    ]);
  assert.equal(store.getState().progress.a?.value, 1, 'the new attempt starts at step 1');
});

test("an undone action's answer and select-all's rows keep progress in step with the rows too", async () => {
  const store = renderingStore({
    'jobs.hold': ({ ids }) => ids.map((id) => job(id, { state: 'held' })),
    'jobs.release': ({ ids }) => ids.map((id) => job(id, { state: 'queued' })),
  });
  // The rows select-all fetched (in chunks of 5,000): `a` finished meanwhile; the table's pages still show it running.
  const finished = storeWith({
    'jobs.list': ({ limit }) => ({ rows: [job('a', { state: limit === 5_000 ? 'completed' : 'running' })], total: 1 }),
  });
  finished.getState().applyBatch([
    { topic: 'job.changed', payload: { job: job('a', { state: 'running' }) } },
    { topic: 'job.progress', payload: { jobId: 'a', progress: frame(19) } },
  ]);
  await finished.getState().selectAll();
  assert.deepEqual([...finished.getState().selected], ['a']);
  assert.equal(
    finished.getState().progress.a,
    undefined,
    'select-all brought the completed row, and the bar went with it',
  );
  // A held job's undo (release) answers with the queued row.
  store.getState().applyBatch([{ topic: 'job.changed', payload: { job: job('b', { state: 'queued' }) } }]);
  await store.getState().runActionOn(['b'], 'hold');
  const toast = store.getState().toasts.find((t) => t.undo);
  assert.ok(toast, 'the hold offers its undo');
  await store.getState().undo(toast.id);
  assert.equal(store.getState().jobs.b?.state, 'queued');
  assert.equal(store.getState().progress.a?.value, 15, 'a row of another job leaves the running one alone');
});

test("the drawer's fetch of a job the queue has not loaded goes into the map the same way", async () => {
  const store = renderingStore({ 'jobs.get': ({ id }) => job(id, { state: 'cancelled' }) });
  await store.getState().loadJob('a');
  assert.equal(store.getState().jobs.a?.state, 'cancelled');
  assert.equal(store.getState().progress.a, undefined);
});
