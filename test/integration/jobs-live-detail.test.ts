/**
 * What a running job's view adds for the Studio: node k of N in its progress (cached nodes count as
 * done), the typical run time of its template version on its GPU model (the median of earlier
 * completed runs), and that a cancel which interrupted a render cannot be undone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JobProgress } from '../../shared/domain.js';
import { ShotfarmError } from '../../shared/errors.js';
import { runEstimates } from '../../electron/engine/queries/run-estimates.js';
import { farmFor } from '../helpers/farm.js';

test('a running job shows node k of N and, after earlier runs on its GPU model, their median time', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ duration: { fixedMs: 40, perClassMs: { KSampler: 1_500 } } }] });
  const { engine } = farm;
  const first = await farm.importJobs(['a', 'b', 'c'].map((id) => ({ id, parameters: { steps: 4, prompt: id } })));
  await farm.waitForStates(first, ['completed'], 30_000);
  const ran = engine.db.all(
    "SELECT finished_at - dispatched_at AS ms FROM attempts WHERE outcome = 'completed' ORDER BY ms",
  ) as { ms: number }[];

  // The shared run-time model is rebuilt at most every 5 s after a completion (a busy farm pays one
  // query per few seconds, not per completion); the three runs here end within that: rebuilt now.
  runEstimates(engine.db).rebuild(Date.now());

  const seen: JobProgress[] = [];
  const off = engine.events.on('job.progress', ({ progress }) => void seen.push(progress));
  ctx.after(off);
  const [next] = await farm.importJobs([{ id: 'd', parameters: { steps: 4, prompt: 'd' } }]);
  await farm.waitFor('the sampler of the next job', () => seen.some((p) => p.nodeType === 'KSampler' && p.max > 0));
  // Answers are looked up again at most once a second after a completion.
  // The run-time model (forecast/run-model.ts) keeps cold starts apart: the first of the three runs
  // loaded the checkpoint, the other two found it loaded.
  await farm.waitFor('an estimate from the three earlier runs', async () => {
    const e = (await farm.job(next!)).estimate;
    return e !== null && e !== undefined && e.runs + (e.coldRuns ?? 0) === 3;
  });
  const view = await farm.job(next!);
  assert.equal(view.state, 'running');
  assert.equal(view.estimate?.coldRuns, 1, 'the first run loaded the model: a cold start, counted apart');
  const longest = ran[ran.length - 1]?.ms ?? 0;
  assert.ok(
    (view.estimate?.typicalMs ?? 0) > 0 && (view.estimate?.typicalMs ?? 0) <= longest,
    `the typical warm run (${view.estimate?.typicalMs} ms) is one of the earlier runs' lengths (longest ${longest} ms)`,
  );
  assert.equal(view.estimate?.gpuName, (await engine.call('instances.list', {}))[0]?.gpuName);

  const sampler = seen.find((p) => p.nodeType === 'KSampler' && p.max > 0)!;
  assert.equal(sampler.nodesTotal, 7, 'txt2img has seven nodes');
  // The simulator caches nodes whose inputs did not change (the checkpoint loader, the negative prompt…).
  assert.ok(sampler.nodesDone! >= 2 && sampler.nodesDone! < 7, `node ${sampler.nodesDone} of 7 at the sampler`);
  await farm.waitForStates([next!], ['completed'], 30_000);
  const counts = seen.filter((p) => p.nodesDone !== undefined).map((p) => p.nodesDone as number);
  assert.deepEqual(
    counts,
    [...counts].sort((a, b) => a - b),
    'k never goes back',
  );
  assert.equal((await farm.job(next!)).estimate ?? null, null, 'only a running job carries an estimate');
});

test('a cancel that interrupted a render cannot be undone', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ duration: { fixedMs: 5_000 } }] });
  const [id] = await farm.importJobs([{ id: 'long' }]);
  await farm.waitForStates([id!], ['running']);
  await farm.engine.call('jobs.cancel', { ids: [id!] });
  await assert.rejects(
    farm.engine.call('jobs.uncancel', { ids: [id!] }),
    (e: unknown) =>
      e instanceof ShotfarmError && e.code === 'conflict' && /was running when it was cancelled/.test(e.message),
  );
  assert.equal((await farm.job(id!)).state, 'cancelled');
});
