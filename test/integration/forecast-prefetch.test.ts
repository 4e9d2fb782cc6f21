/**
 * The forecast and prefetch (issue 28): a prompt sent ahead to wait on its GPU behind the running
 * one starts when that one ends — ComfyUI runs one prompt at a time — so the forecast puts its end
 * a whole run after the running one's, and the queue's next job after it. It used to count the
 * waiting prompt as running beside the other (from now), so each workstation's queue ended one run
 * early.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isNextUp } from '../../shared/live-attempt.js';
import { forecastEndOf } from '../../electron/engine/forecast/forecast-ends.js';
import { bucketOf } from '../../electron/engine/forecast/run-buckets.js';
import { runEstimates } from '../../electron/engine/queries/run-estimates.js';
import { farmFor } from '../helpers/farm.js';

test('a prompt waiting on its GPU behind the running one ends a run after it in the forecast, and the next job after that', async (t) => {
  const farm = await farmFor(t, { instances: [{ gpuName: 'SIM GPU', duration: { fixedMs: 1_500 } }] });
  const e = farm.engine;
  // Warm-up: runs on this GPU model, so the model has a figure.
  const warm = await farm.importJobs(
    Array.from({ length: 3 }, (_, i) => ({ id: `warm${i}` })),
    'P',
    'warm',
  );
  await farm.waitForStates(warm, ['completed'], 30_000);
  const ids = await farm.importJobs(
    Array.from({ length: 3 }, (_, i) => ({ id: `sh${i}` })),
    'P',
    'ep101',
  );
  // The moment one runs and the next waits behind it on the server.
  let running = '';
  let next = '';
  await farm.waitFor(
    'one prompt running and the next waiting behind it',
    async () => {
      const views = await Promise.all(ids.map((id) => farm.job(id)));
      const r = views.find((v) => v.state === 'running' && !isNextUp(v));
      const n = views.find((v) => isNextUp(v));
      if (!r || !n) return false;
      running = r.id;
      next = n.id;
      return true;
    },
    20_000,
  );
  const now = Date.now();
  e.forecast.compute(now);
  const queued = ids.find((id) => id !== running && id !== next) as string;
  const templateId = e.db.one<{ t: number }>('SELECT template_id AS t FROM jobs WHERE id = ?', running)?.t as number;
  const run = runEstimates(e.db).model(now).figure(templateId, 'SIM GPU', bucketOf('{}'));
  assert.ok(run, 'the warm-up gave the model a figure');
  const [r, n, q] = [running, next, queued].map((id) => forecastEndOf(e.db, id));
  assert.ok(r && n && q, `each has a forecast end: ${JSON.stringify([r, n, q])}`);
  assert.ok(
    n.p50 - r.p50 >= run.p50Ms * 0.9,
    `the waiting prompt ends a run (${run.p50Ms} ms) after the running one: ${n.p50 - r.p50} ms after`,
  );
  assert.ok(
    q.p50 - n.p50 >= run.meanMs * 0.9,
    `the queued job ends a run after the waiting one: ${q.p50 - n.p50} ms after (a run ${run.meanMs} ms)`,
  );
});
