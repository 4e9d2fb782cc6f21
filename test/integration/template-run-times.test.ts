/**
 * Issue 28 item 4 as the Templates view sees it (`templates.runTimes`): per GPU model the median and
 * p90 of a template version's warm runs from their real start, the runs that loaded their
 * checkpoint (cold starts) apart, and no figure below the run-time model's threshold.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MIN_RUNS } from '../../electron/engine/forecast/run-model.js';
import { farmFor } from '../helpers/farm.js';
import { addSdxlTemplate, SDXL_NEEDS, SDXL_TEMPLATE, sdxlShots } from '../helpers/sd-graph.js';
import { makeEngine } from '../helpers/engine.js';
import {
  claimRun,
  endRun,
  keyframeJobs,
  RTX3060,
  RTX4090,
  seedTemplateRuns,
  writeRun,
} from '../helpers/template-runs.js';

test('templates.runTimes: the median and p90 of warm runs from their real start per GPU model, cold starts apart, "not enough" below the threshold', async (ctx) => {
  const t = await makeEngine();
  ctx.after(() => t.close());
  // gpu-01: a 100 s cold run, warm ones of 10–50 s; gpu-02: a cold run and two warm ones (helpers/template-runs.ts).
  await seedTemplateRuns(t);

  const v = await t.engine.call('templates.runTimes', { name: 'keyframe-img2img' });
  assert.equal(v.name, 'keyframe-img2img');
  assert.equal(v.minRuns, MIN_RUNS);
  assert.deepEqual(v.gpus, [
    { gpu: RTX3060, runs: 2, p50Ms: null, p90Ms: null, coldRuns: 1, coldMs: 200_000 },
    // Warm 10, 20, 30, 40, 50 s: median 30 s, p90 40 + 0.6 × 10 = 46 s; the 100 s cold run is not among them.
    { gpu: RTX4090, runs: 5, p50Ms: 30_000, p90Ms: 46_000, coldRuns: 1, coldMs: 100_000 },
  ]);
  const other = await t.engine.call('templates.runTimes', { name: 'motion-i2v' });
  assert.deepEqual(other.gpus, [], 'a template that never ran has no figures');
  await assert.rejects(t.engine.call('templates.runTimes', { name: 'nope' }), /No template named nope/);
});

test('on the simulator: completed runs give a warm median and p90 from the real start; the run that loaded the model is counted apart', async (ctx) => {
  // Far above what a loaded machine adds to a 340 ms warm run, so cold and warm never overlap.
  const modelLoadMs = 3_000;
  const farm = await farmFor(ctx, {
    instances: [
      {
        gpuName: RTX4090,
        vramNeeds: SDXL_NEEDS,
        duration: { fixedMs: 40, perClassMs: { KSampler: 300 }, modelLoadMs },
      },
    ],
    // One prompt on the GPU at a time, each sent after the previous ended: every run's figure is
    // its own (the order under prefetch is the test below).
    config: { prefetch: false },
  });
  await addSdxlTemplate(farm, 60);
  const ids = await farm.importJobs(sdxlShots(6, 'rt'));
  await farm.waitForStates(ids, ['completed'], 60_000);
  const v = await farm.engine.call('templates.runTimes', { name: SDXL_TEMPLATE });
  assert.equal(v.gpus.length, 1);
  const g = v.gpus[0]!;
  assert.equal(g.gpu, RTX4090);
  assert.equal(g.coldRuns, 1, 'the first run loaded the checkpoint');
  assert.equal(g.runs, 5, 'the other five found it loaded');
  assert.ok(g.p50Ms !== null && g.p90Ms !== null, 'five warm runs are enough for a figure');
  // A warm run is the sampler's 300 ms and the fixed 40 ms; the cold one adds the 3 s load.
  assert.ok(g.p50Ms >= 340 && g.p50Ms < 340 + modelLoadMs, `warm median ${g.p50Ms} ms`);
  assert.ok(g.p90Ms >= g.p50Ms, `p90 ${g.p90Ms} ≥ median ${g.p50Ms}`);
  assert.ok(g.coldMs !== null && g.coldMs >= 340 + modelLoadMs, `cold start ${g.coldMs} ms includes the model load`);
  assert.ok(g.coldMs > g.p90Ms, 'the cold start is kept out of the warm figures');
  // The figures are of the runs the store recorded, from their real start.
  const rows = farm.engine.db.all<{ ms: number }>(
    "SELECT finished_at - started_at AS ms FROM attempts WHERE outcome = 'completed' ORDER BY ms",
  );
  assert.equal(rows.length, 6);
  const longest = rows[rows.length - 1]!.ms;
  assert.ok(g.coldMs <= longest + 1_000, `cold ${g.coldMs} ms within the recorded runs (longest ${longest} ms)`);
});

test('the run that started first on a workstation is its cold start, even when it was dispatched after one waiting there (a rush pulled ahead)', async (ctx) => {
  const t = await makeEngine();
  ctx.after(() => t.close());
  const [waiting, rush, ...later] = (await keyframeJobs(t, 4)) as [string, string, string, string];
  const { db } = t.engine;
  // `waiting` is dispatched first; `rush`, dispatched a moment later, goes ahead of it on the GPU
  // and loads the model (100 s); `waiting` starts once it is done and runs warm (30 s).
  const w = claimRun(db, t.clock, waiting, 'gpu-01', RTX4090);
  t.clock.advance(1);
  const r = claimRun(db, t.clock, rush, 'gpu-01', RTX4090);
  const rushStart = t.clock.now() + 1;
  t.clock.advance(1 + 100_000);
  endRun(db, t.clock, rush, r, 'gpu-01', rushStart);
  const waitingStart = t.clock.now();
  t.clock.advance(30_000);
  endRun(db, t.clock, waiting, w, 'gpu-01', waitingStart);
  t.clock.advance(5_000);
  for (const id of later) writeRun(db, t.clock, id, 'gpu-01', RTX4090, 0, 30_000);

  const v = await t.engine.call('templates.runTimes', { name: 'keyframe-img2img' });
  assert.deepEqual(v.gpus, [{ gpu: RTX4090, runs: 3, p50Ms: 30_000, p90Ms: 30_000, coldRuns: 1, coldMs: 100_000 }]);
});
