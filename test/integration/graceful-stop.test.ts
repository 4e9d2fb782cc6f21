/**
 * Defect 1 of issue [R]: a graceful stop (Ctrl+C / SIGTERM on run or serve, quitting the app) while
 * /view streamed recorded the attempt as failed ("GET /view: aborted") and the retry rendered the
 * shot again on another GPU. Now the download may finish (bounded), or is left for the next start,
 * which collects it from the server's history: never a failure, never a second render.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { Engine } from '../../electron/engine/engine.js';
import { hostileFarmFor, on, type Upstream } from '../helpers/hostile-comfy.js';
import { nextValue } from '../helpers/wait.js';

/** A /view that sends its headers and first bytes, then holds the rest until released. */
function heldView() {
  let started: (() => void) | null = null;
  const downloading = nextValue<void>((deliver) => (started = deliver), { what: 'the output download to start' });
  const parked: { res: ServerResponse; up: Upstream }[] = [];
  const route = on('GET', '/view', async (_req, res, upstream) => {
    const up = await upstream();
    res.writeHead(up.status, { 'content-type': 'image/png', 'content-length': String(up.body.length) });
    res.write(up.body.subarray(0, 8));
    parked.push({ res, up });
    started?.();
  });
  const release = (): void => {
    for (const { res, up } of parked.splice(0)) res.end(up.body.subarray(8));
  };
  return { route, downloading, release };
}

/** The job and its attempts as the store has them, read by a one-shot engine (no farm). */
async function stored(dir: string, id: string) {
  const e = new Engine({ dataDir: dir, log: () => undefined });
  try {
    return { job: await e.call('jobs.get', { id }), attempts: await e.call('jobs.attempts', { id }) };
  } finally {
    await e.close();
  }
}

test('a stop whose wait for a download runs out leaves the attempt open, and the next start collects it: no failure, no second render', async (ctx) => {
  const view = heldView();
  const { farm, sim, hostile } = await hostileFarmFor(ctx, { routes: [view.route], config: { stopGraceMs: 100 } });
  farm.startScheduler();
  const [id] = await farm.importJobs([{ id: 'sh1' }]);
  await view.downloading;
  await farm.engine.close(); // the graceful stop: Ctrl+C, SIGTERM, quitting the app
  view.release();
  const cut = await stored(farm.dir, id!);
  assert.equal(cut.job.state, 'running', `the job is not failed: ${cut.job.stateReason}`);
  assert.deepEqual(
    cut.attempts.map((a) => [a.outcome, a.reason]),
    [[null, null]],
    'its one attempt stays open for the next start',
  );

  hostile.setRoutes([]);
  await farm.restartEngine();
  const [done] = await farm.waitForStates([id!], ['completed', 'failed_final']);
  assert.equal(done!.state, 'completed', done!.stateReason ?? '');
  assert.equal(sim.counts(id!).executed, 1, 'rendered once');
  assert.deepEqual(
    (await farm.engine.call('jobs.attempts', { id: id! })).map((a) => a.outcome),
    ['completed'],
    'the same attempt, collected',
  );
  assert.equal((await farm.engine.call('assets.list', { shot: 'sh1' })).total, 1);
});

test('a stop lets a download in flight finish within its wait: the job completes before the engine is gone', async (ctx) => {
  const view = heldView();
  const { farm, sim } = await hostileFarmFor(ctx, { routes: [view.route], config: { stopGraceMs: 20_000 } });
  farm.startScheduler();
  const [id] = await farm.importJobs([{ id: 'sh1' }]);
  await view.downloading;
  const closing = farm.engine.close();
  view.release();
  await closing;
  const after = await stored(farm.dir, id!);
  assert.equal(after.job.state, 'completed', after.job.stateReason ?? '');
  assert.deepEqual(
    after.attempts.map((a) => a.outcome),
    ['completed'],
  );
  assert.equal(sim.counts(id!).executed, 1);
});
