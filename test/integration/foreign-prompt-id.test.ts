/**
 * Issue [R] defect 10: a server answering POST /prompt with another prompt id than ours (an old
 * ComfyUI that mints its own) read "the prompt disappeared (the server restarted?)" and was sent
 * the prompt again at every attempt. Now it is its own observation: its own words, the run it
 * started for nobody is taken off it, the workstation takes no more work, and the job renders
 * once, elsewhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { executedCount, farmFor } from '../helpers/farm.js';
import { oldComfyProxy } from '../helpers/stand-in-servers.js';

test('a foreign prompt id is its own failure: named, its run removed, the server quarantined at once, the job completed elsewhere', async (ctx) => {
  // sim-0 renders slowly, so the run it started under its own id is still there to be removed.
  const farm = await farmFor(ctx, {
    instances: [{ duration: { fixedMs: 3_000 } }, { duration: { fixedMs: 20 } }],
    start: false,
  });
  const old = await oldComfyProxy(ctx, farm.sims[0]!.url);
  await farm.engine.call('instances.update', { id: 'sim-0', name: 'sim-0', url: old.url });
  await farm.engine.call('instances.setAdminState', { id: 'sim-1', adminState: 'disabled' });
  farm.startScheduler();
  const [id] = await farm.importJobs([{ id: 'sh010' }]);

  await farm.waitFor('the first attempt to end', async () =>
    (await farm.engine.call('jobs.attempts', { id: id! })).some((a) => a.outcome !== null),
  );
  const [first] = await farm.engine.call('jobs.attempts', { id: id! });
  assert.match(first?.reason ?? '', /sim-0 answered with prompt id [0-9a-f-]{36} instead of the one Shotfarm sent \(/);
  assert.match(first?.reason ?? '', /ignores the client's prompt_id.*update ComfyUI on sim-0/);
  assert.doesNotMatch(first?.reason ?? '', /restarted/);
  assert.equal(old.mintedIds.length, 1);
  const minted = old.mintedIds[0]!;
  assert.notEqual(minted, id);

  await farm.waitFor(
    'sim-0 to be quarantined',
    async () =>
      (await farm.engine.call('instances.list', {})).find((i) => i.name === 'sim-0')?.health === 'quarantined',
  );
  await farm.waitFor(
    'the orphan run to leave sim-0',
    () => farm.sims[0]!.counts(minted).interrupted + farm.sims[0]!.counts(minted).executed > 0,
  );
  assert.equal(
    farm.sims[0]!.counts(minted).interrupted,
    1,
    'the run nobody could collect was interrupted, not left to render',
  );

  await farm.engine.call('instances.setAdminState', { id: 'sim-1', adminState: 'active' });
  const [done] = await farm.waitForStates([id!], ['completed'], 30_000);
  assert.equal(done?.attempts, 2);
  assert.equal(old.posts(), 1, 'the old server got the prompt once, not once per attempt');
  assert.equal(executedCount(farm, id!), 1, 'rendered once, under our id, on sim-1');
});
