/**
 * A job that waits for the cloud endpoint says so (issue 18): jobs.why and the job's waitReason add
 * the burst policy's words to the LAN's reason — "cloud burst waits until the job has waited N
 * min", "today's cloud budget is spent" — both from the running farm and from the store (the CLI).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobWhy } from '../../electron/engine/views/job-why.js';
import { storedFarmFacts } from '../../electron/engine/views/stored-facts.js';
import { explainer } from '../../electron/engine/views/wait-explainer.js';
import { jobRow } from '../../electron/engine/store/job-store.js';
import type { Engine } from '../../electron/engine/engine.js';
import { cloudFarmFor } from '../helpers/cloud-farm.js';

/** What a process without the farm (the CLI's `jobs why`) says of the job, from the store. */
function storedWhy(engine: Engine, id: string): string {
  const facts = storedFarmFacts(engine.db, engine.settings, Date.now());
  return jobWhy(engine.db, jobRow(engine.db, id)!, facts, explainer(facts, engine.templates)).summary;
}

test('a job before burst_after_s says the cloud burst waits until it has waited that long, in jobs.why, its waitReason and from the store', async (t) => {
  const { farm, sim } = await cloudFarmFor(t, { burstAfterS: 600 });
  const [id] = await farm.importJobs([{ id: 'sh010' }]);
  const why = await farm.engine.call('jobs.why', { id: id as string });
  assert.equal(why.state, 'queued');
  assert.match(why.summary, /; cloud burst waits until the job has waited 10 min$/);
  assert.match((await farm.job(id as string)).waitReason ?? '', /cloud burst waits until the job has waited 10 min/);
  assert.match(storedWhy(farm.engine, id as string), /; cloud burst waits until the job has waited 10 min$/);
  assert.equal(sim.runCalls(), 0);
});

test("once today's budget is spent, the jobs still queued say so", async (t) => {
  // $36/h and a cold start of ~1 s: one job costs at least $0.01; the budget is $0.01.
  const { farm } = await cloudFarmFor(t, { budgetUsd: 0.01, pricePerHourUsd: 36, sim: { coldStartMs: 900 } });
  const ids = await farm.importJobs([{ id: 'b1' }, { id: 'b2' }]);
  await farm.waitFor('one completed', async () =>
    (await Promise.all(ids.map((i) => farm.job(i)))).some((j) => j.state === 'completed'),
  );
  const queued = (await Promise.all(ids.map((i) => farm.job(i)))).find((j) => j.state === 'queued');
  assert.ok(queued, 'the other job is still queued');
  assert.match(
    (await farm.engine.call('jobs.why', { id: queued.id })).summary,
    /; today's cloud budget is spent \(\$0\.\d\d of \$0\.01\)$/,
  );
  assert.match(queued.waitReason ?? '', /today's cloud budget is spent/);
  assert.match(storedWhy(farm.engine, queued.id), /today's cloud budget is spent/);
});

test('no word of the cloud for a job no endpoint could take (the endpoint is disabled)', async (t) => {
  const { farm } = await cloudFarmFor(t, { burstAfterS: 600 });
  const [endpoint] = await farm.engine.call('instances.list', {});
  await farm.engine.call('instances.setAdminState', { id: endpoint!.id, adminState: 'disabled' });
  const [id] = await farm.importJobs([{ id: 'sh010' }]);
  assert.doesNotMatch((await farm.engine.call('jobs.why', { id: id as string })).summary, /cloud/);
  assert.doesNotMatch(storedWhy(farm.engine, id as string), /cloud/);
});
