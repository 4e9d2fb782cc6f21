/**
 * burst_after_s counts only time a job could have been dispatched (issue 25): a pause longer than
 * burst_after_s, or a hold longer than it, does not send the job to the paid endpoint the moment
 * the farm resumes or the job is released — it waits burst_after_s of dispatchable time first.
 * Real SQLite, the RunPod simulator over loopback, no LAN workstation (only the endpoint could take it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attemptsOfJob } from '../../electron/engine/store/attempt-store.js';
import { cloudFarmFor } from '../helpers/cloud-farm.js';
import { setTimeout as sleep } from 'node:timers/promises';

const BURST_AFTER_S = 2;

test('after a pause longer than burst_after_s, resume sends no job to the endpoint before burst_after_s of dispatchable time', {
  timeout: 30_000,
}, async (t) => {
  const { farm, sim } = await cloudFarmFor(t, { burstAfterS: BURST_AFTER_S });
  await farm.engine.call('farm.pause', { by: 'test' });
  const [id] = await farm.importJobs([{ id: 'sh010' }]);
  await sleep((BURST_AFTER_S + 1.5) * 1000);
  assert.equal(sim.runCalls(), 0, 'nothing goes out while paused');
  const resumedAt = Date.now();
  await farm.engine.call('farm.resume', { by: 'test' });
  await sleep(BURST_AFTER_S * 500);
  assert.equal(sim.runCalls(), 0, 'half of burst_after_s after the resume, nothing was sent to the endpoint');
  assert.match(
    (await farm.engine.call('jobs.why', { id: id as string })).summary,
    /cloud burst waits until the job has waited 2 s/,
  );
  await farm.waitFor(
    'the job went to the endpoint',
    () => attemptsOfJob(farm.engine.db, id as string).length === 1,
    15_000,
  );
  const [attempt] = attemptsOfJob(farm.engine.db, id as string);
  assert.ok(
    (attempt?.dispatched_at ?? 0) - resumedAt >= BURST_AFTER_S * 1000,
    `dispatched ${(attempt?.dispatched_at ?? 0) - resumedAt} ms after the resume`,
  );
});

test('a job held longer than burst_after_s waits burst_after_s again once released', { timeout: 30_000 }, async (t) => {
  const { farm, sim } = await cloudFarmFor(t, { burstAfterS: BURST_AFTER_S, start: false });
  const [id] = await farm.importJobs([{ id: 'sh020' }]);
  await farm.engine.call('jobs.hold', { ids: [id as string] });
  farm.startScheduler();
  await sleep((BURST_AFTER_S + 1.5) * 1000);
  const releasedAt = Date.now();
  await farm.engine.call('jobs.release', { ids: [id as string] });
  await sleep(BURST_AFTER_S * 500);
  assert.equal(sim.runCalls(), 0, 'half of burst_after_s after the release, nothing was sent to the endpoint');
  await farm.waitFor(
    'the job went to the endpoint',
    () => attemptsOfJob(farm.engine.db, id as string).length === 1,
    15_000,
  );
  const [attempt] = attemptsOfJob(farm.engine.db, id as string);
  assert.ok(
    (attempt?.dispatched_at ?? 0) - releasedAt >= BURST_AFTER_S * 1000,
    `dispatched ${(attempt?.dispatched_at ?? 0) - releasedAt} ms after the release`,
  );
});
