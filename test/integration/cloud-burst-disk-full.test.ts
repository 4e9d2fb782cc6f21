/**
 * A RunPod answer's images are stored the way a LAN download is (collect.ts's OutputFile): a full
 * output disk is not the attempt's failure but a farm-level hold ("output disk full"), and the
 * images are stored once there is room — with one /run, no attempt burned, the cost recorded once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attemptsOfJob } from '../../electron/engine/store/attempt-store.js';
import { cloudFarmFor } from '../helpers/cloud-farm.js';
import { fillingDisk } from '../helpers/filling-disk.js';

test('a full output disk while storing a RunPod answer holds the farm and stores the images once freed: one /run, one attempt', async (t) => {
  const disk = fillingDisk(100);
  const { farm, sim } = await cloudFarmFor(t, {
    farm: { outputFs: disk, config: { runpodPollMs: 40, storageRetryMs: 100, storageRetryCapMs: 300 } },
  });
  const [id] = await farm.importJobs([{ id: 'sh010' }]);
  await farm.waitFor(
    'the farm to hold on the full output disk',
    async () => (await farm.engine.call('farm.status', {})).storageHold?.kind === 'output_disk_full',
  );
  assert.match(
    (await farm.engine.call('farm.status', {})).storageHold?.reason ?? '',
    /^output disk full: .+ \(job sh010 .+ on cloud-sim\)$/,
  );
  await farm.waitFor('the farm to try the disk again', () => disk.refused() >= 2);
  const waiting = await farm.job(id as string);
  assert.equal(waiting.state, 'running', 'not failed for the full disk');

  disk.free();
  const [job] = await farm.waitForStates([id as string], ['completed', 'failed_retryable', 'failed_final'], 20_000);
  assert.equal(job?.state, 'completed', job?.stateReason ?? '');
  assert.equal(job?.attempts, 1);
  assert.equal(sim.runCalls(), 1, 'the render was not sent again');
  const [attempt] = attemptsOfJob(farm.engine.db, id as string);
  assert.ok((attempt?.cost_usd ?? 0) > 0);
  await farm.waitFor(
    'the hold to be over',
    async () => (await farm.engine.call('farm.status', {})).storageHold === null,
  );
});
