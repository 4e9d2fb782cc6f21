/**
 * burst_after_s counts only time a job could have been dispatched (issue 25): a pause, a job's hold,
 * the farm's storage hold or a blocked period longer than burst_after_s does not send the job to the
 * paid endpoint the moment it ends — it waits burst_after_s of dispatchable time first.
 * Real SQLite, the RunPod simulator over loopback; no LAN workstation could take the jobs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attemptsOfJob } from '../../electron/engine/store/attempt-store.js';
import { cloudFarmFor } from '../helpers/cloud-farm.js';
import type { Farm } from '../helpers/farm.js';
import { fillingDisk } from '../helpers/filling-disk.js';
import { addTemplateVariant } from '../helpers/template-variants.js';
import type { RunpodSim } from '../simulator/runpod/server.js';
import { setTimeout as sleep } from 'node:timers/promises';

const BURST_AFTER_S = 2;
const BURST_AFTER_MS = BURST_AFTER_S * 1000;

/**
 * Waits for the job to go to the endpoint, and checks that nothing went there within burst_after_s
 * of `since` (taken just before the change that ends the wait): the attempt's dispatch time and the
 * simulator's /run arrivals are stamped as they happen, so a loaded machine that wakes the test late
 * cannot fail a farm that waited, nor pass one that did not.
 */
async function assertDispatchedAfter(farm: Farm, sim: RunpodSim, id: string, since: number, what: string) {
  await farm.waitFor('the job went to the endpoint', () => attemptsOfJob(farm.engine.db, id).length === 1, 30_000);
  const at = attemptsOfJob(farm.engine.db, id)[0]?.dispatched_at ?? 0;
  assert.ok(at - since >= BURST_AFTER_MS, `dispatched ${at - since} ms after ${what}`);
  const early = sim.jobs().filter((j) => j.submittedAt >= since && j.submittedAt - since < BURST_AFTER_MS);
  assert.deepEqual(
    early.map((j) => `/run ${j.submittedAt - since} ms after ${what}`),
    [],
    'nothing reached the endpoint within burst_after_s',
  );
}

test('after a pause longer than burst_after_s, resume sends no job to the endpoint before burst_after_s of dispatchable time', {
  timeout: 60_000,
}, async (t) => {
  const { farm, sim } = await cloudFarmFor(t, { burstAfterS: BURST_AFTER_S });
  await farm.engine.call('farm.pause', { by: 'test' });
  const [id] = await farm.importJobs([{ id: 'sh010' }]);
  await sleep((BURST_AFTER_S + 1.5) * 1000);
  assert.equal(sim.runCalls(), 0, 'nothing goes out while paused');
  const resumedAt = Date.now();
  await farm.engine.call('farm.resume', { by: 'test' });
  const { summary } = await farm.engine.call('jobs.why', { id: id as string });
  // Judged when answered within burst_after_s of the resume: past it (a machine loaded enough to
  // take 2 s over two calls) the job may rightly have gone; the dispatch times below still judge it.
  if (Date.now() - resumedAt < BURST_AFTER_MS) assert.match(summary, /cloud burst waits until the job has waited 2 s/);
  else t.diagnostic(`jobs.why answered ${Date.now() - resumedAt} ms after the resume: not judged`);
  await assertDispatchedAfter(farm, sim, id as string, resumedAt, 'the resume');
});

test('a job held longer than burst_after_s waits burst_after_s again once released', { timeout: 60_000 }, async (t) => {
  const { farm, sim } = await cloudFarmFor(t, { burstAfterS: BURST_AFTER_S, start: false });
  const [id] = await farm.importJobs([{ id: 'sh020' }]);
  await farm.engine.call('jobs.hold', { ids: [id as string] });
  farm.startScheduler();
  await sleep((BURST_AFTER_S + 1.5) * 1000);
  assert.equal(sim.runCalls(), 0, 'nothing goes out while held');
  const releasedAt = Date.now();
  await farm.engine.call('jobs.release', { ids: [id as string] });
  await assertDispatchedAfter(farm, sim, id as string, releasedAt, 'the release');
});

test('a storage hold longer than burst_after_s sends no normal job to the endpoint during it, nor before burst_after_s after it ends', {
  timeout: 60_000,
}, async (t) => {
  const disk = fillingDisk(100);
  const { farm, sim } = await cloudFarmFor(t, {
    burstAfterS: BURST_AFTER_S,
    endpoint: { maxConcurrency: 2 },
    farm: { outputFs: disk, config: { runpodPollMs: 40, storageRetryMs: 100, storageRetryCapMs: 300 } },
  });
  // A rush job goes to the endpoint at once; storing its images finds the output disk full: the farm holds.
  const [rush] = await farm.importJobs([{ id: 'sh001', priority: 'rush' }]);
  await farm.waitFor(
    'the farm to hold on the full output disk',
    async () => (await farm.engine.call('farm.status', {})).storageHold?.kind === 'output_disk_full',
  );
  const [id] = await farm.importJobs([{ id: 'sh030' }]);
  // The hold lasts past burst_after_s; it is lifted for a moment at every retry, and dispatch passes run then.
  await sleep((BURST_AFTER_S + 1.5) * 1000);
  assert.ok(disk.refused() >= 3, 'the farm tried its disk again several times');
  assert.equal(sim.runCalls(), 1, 'only the rush job went out during the hold');
  const freedAt = Date.now();
  disk.free();
  await farm.waitForStates([rush as string], ['completed'], 30_000);
  await assertDispatchedAfter(farm, sim, id as string, freedAt, 'the disk was freed');
});

test('a job blocked longer than burst_after_s waits burst_after_s once an endpoint can take it', {
  timeout: 60_000,
}, async (t) => {
  // A LAN workstation without the tag, and the endpoint without it at first: no one could take the job.
  const { farm, sim } = await cloudFarmFor(t, { burstAfterS: BURST_AFTER_S, farm: { instances: [{}] }, start: false });
  await addTemplateVariant(farm.engine, 'txt2img', { name: 'tagged', tags: ['cloud-xl'] });
  const [id] = await farm.importJobs([{ id: 'sh040', template: 'tagged' }]);
  farm.startScheduler();
  await farm.waitFor('the job to be marked blocked', async () => (await farm.job(id as string)).blocked);
  await sleep((BURST_AFTER_S + 1.5) * 1000);
  const endpoint = (await farm.engine.call('instances.list', {})).find((i) => i.kind === 'runpod');
  assert.ok(endpoint?.cloud, 'the endpoint is listed');
  const unblockedAt = Date.now();
  await farm.engine.call('cloud.updateRunpod', {
    id: endpoint.id,
    name: endpoint.name,
    endpointId: endpoint.cloud.endpointId,
    pricePerHourUsd: 3.6,
    tags: ['cloud-xl'],
  });
  await farm.waitFor('the job to be unblocked', async () => !(await farm.job(id as string)).blocked);
  await assertDispatchedAfter(farm, sim, id as string, unblockedAt, 'an endpoint could take it');
});
