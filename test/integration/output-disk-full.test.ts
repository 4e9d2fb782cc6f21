/**
 * Defect 10 (its full-disk part) of issue [R]: a full output disk read "network error ENOSPC" and
 * burned all four attempts of every job in seconds, each one rendering the shot again. Now it is
 * "output disk full", a visible farm-level hold (farm.status storageHold) that retries by itself:
 * the render stays on the workstation's history and is collected once there is room — once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fillingDisk } from '../helpers/filling-disk.js';
import { executedCount, farmFor } from '../helpers/farm.js';

test('a full output disk holds the farm as "output disk full" and resumes by itself once freed: every job rendered once, no attempt burned', async (ctx) => {
  const disk = fillingDisk(100); // the first output's first chunk does not fit
  const farm = await farmFor(ctx, {
    instances: [{}],
    outputFs: disk,
    config: { storageRetryMs: 100, storageRetryCapMs: 300 },
  });
  const ids = await farm.importJobs(Array.from({ length: 6 }, (_, i) => ({ id: `sh${i}` })));
  await farm.waitFor(
    'the farm to hold on the full output disk',
    async () => (await farm.engine.call('farm.status', {})).storageHold?.kind === 'output_disk_full',
  );
  const held = await farm.engine.call('farm.status', {});
  assert.match(
    held.storageHold?.reason ?? '',
    /^output disk full: .+ could not be written to .+\. Free some space; the farm waits and retries by itself/,
  );
  assert.equal(held.dispatching, false);
  // The hold retries by itself (the disk refuses again) and, meanwhile, spends nothing.
  await farm.waitFor('the farm to try the disk again', () => disk.refused() >= 3);
  const waiting = await Promise.all(ids.map((id) => farm.job(id)));
  assert.deepEqual(
    waiting.filter((j) => j.state.startsWith('failed')).map((j) => [j.shot, j.stateReason]),
    [],
    'no job failed on the full disk',
  );
  assert.ok(
    waiting.every((j) => j.attempts <= 1),
    JSON.stringify(waiting.map((j) => j.attempts)),
  );

  disk.free();
  const done = await farm.waitForStates(ids, ['completed', 'failed_final', 'failed_retryable'], 60_000);
  assert.deepEqual(
    done.filter((j) => j.state !== 'completed').map((j) => [j.shot, j.state, j.stateReason]),
    [],
  );
  assert.deepEqual(
    done.filter((j) => j.attempts !== 1).map((j) => [j.shot, j.attempts]),
    [],
    'one attempt each',
  );
  for (const id of ids) assert.equal(executedCount(farm, id), 1, `job ${id} rendered once`);
  await farm.waitFor(
    'the hold to be over',
    async () => (await farm.engine.call('farm.status', {})).storageHold === null,
  );
});
