/**
 * What a running job's view adds for the Studio: node k of N in its progress (cached nodes count as
 * done), the typical run time of its template version on its GPU model (the median of earlier
 * completed runs), and that a cancel which interrupted a render cannot be undone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JobProgress } from '../../shared/domain.js';
import { ShotfarmError } from '../../shared/errors.js';
import { farmFor } from '../helpers/farm.js';

test('a running job shows node k of N and, after earlier runs on its GPU model, their median time', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ duration: { fixedMs: 40, perClassMs: { KSampler: 1_500 } } }] });
  const { engine } = farm;
  const first = await farm.importJobs(['a', 'b', 'c'].map((id) => ({ id, parameters: { steps: 4, prompt: id } })));
  await farm.waitForStates(first, ['completed'], 30_000);
  const ran = engine.db
    .prepare("SELECT finished_at - dispatched_at AS ms FROM attempts WHERE outcome = 'completed' ORDER BY ms")
    .all() as { ms: number }[];

  const seen: JobProgress[] = [];
  const off = engine.events.on('job.progress', ({ progress }) => void seen.push(progress));
  ctx.after(off);
  const [next] = await farm.importJobs([{ id: 'd', parameters: { steps: 4, prompt: 'd' } }]);
  await farm.waitFor('the sampler of the next job', () => seen.some((p) => p.nodeType === 'KSampler' && p.max > 0));
  // Answers are looked up again at most once a second after a completion.
  await farm.waitFor(
    'an estimate from the three earlier runs',
    async () => (await farm.job(next!)).estimate?.runs === 3,
  );
  const view = await farm.job(next!);
  assert.equal(view.state, 'running');
  assert.equal(view.estimate?.typicalMs, ran[1]?.ms, 'the median of the three earlier runs');
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
