/**
 * A farm's start with many workstations (the scale bench's start-up burst): the first probes go
 * out in bounded groups, one group per turn of the event loop, and the blocked-jobs keeper begins
 * its full pass over the queue once for the burst of workstations coming up, not once per
 * workstation — while every workstation is still probed and takes work.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIRST_PROBE_GROUP } from '../../electron/engine/pools/comfy-lan/instance-registry.js';
import { farmFor, startPaused, type ShotSpec } from '../helpers/farm.js';
import { addTemplateVariant } from '../helpers/template-variants.js';

const turn = () => new Promise<void>((done) => setImmediate(done));

test("a farm's first probes go out in groups of FIRST_PROBE_GROUP per turn, and every workstation is probed and comes up", async (ctx) => {
  const n = FIRST_PROBE_GROUP + 6;
  const farm = await farmFor(ctx, { instances: Array.from({ length: n }, () => ({})), start: false });
  farm.startScheduler();
  const scheduler = farm.engine.scheduler;
  assert.ok(scheduler);
  const probed = () => scheduler.readiness().filter((r) => r.probed).length;
  assert.equal(probed(), FIRST_PROBE_GROUP, 'the first group, in the turn of the start');
  await turn();
  assert.ok(probed() <= FIRST_PROBE_GROUP * 2, `${probed()} probed after one more turn`);
  await farm.waitFor('every workstation probed', () => probed() === n);
  await farm.waitFor('every workstation up with its node list', () =>
    scheduler.readiness().every((r) => r.dispatchable && r.nodeListKnown),
  );
});

test('the blocked-jobs keeper begins its full pass once for a burst of workstations coming up, not once per workstation', async (ctx) => {
  const n = 24;
  const farm = await farmFor(ctx, {
    instances: Array.from({ length: n }, () => ({})),
    start: false,
    // One interval covers the whole burst on loopback: the pass begun at start, and at most one more.
    config: { probeIntervalMs: 5_000 },
  });
  // A queue of several chunks (125 rows each), so a pass is still going while the workstations come up.
  const shots: ShotSpec[] = Array.from({ length: 600 }, (_, i) => ({ id: `s${i}` }));
  await farm.importJobs(shots);
  const scheduler = await startPaused(farm, { up: true });
  // Each came up with two changes of the facts (its VRAM total, its node list): 48 chances to restart.
  const { passes, steps } = scheduler.blockedKeeper;
  assert.ok(passes <= 2, `${passes} full passes begun (${steps} steps) while ${n} workstations came up`);
});

test("a workstation's tags edited while the farm runs are what the next decision sees (the row's parsed fields are not kept past an edit)", async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{}] });
  await addTemplateVariant(farm.engine, 'txt2img', { name: 'tagged', tags: ['img2img'] });
  const [id] = (await farm.importJobs([{ id: 'needs-tag', template: 'tagged' }])) as [string];
  await farm.waitFor('the job marked blocked', async () => (await farm.job(id)).blocked);
  const sim = farm.sims[0];
  assert.ok(sim);
  await farm.engine.call('instances.update', { id: 'sim-0', name: 'sim-0', url: sim.url, tags: ['img2img'] });
  const [done] = await farm.waitForStates([id], ['completed']);
  assert.equal(done?.blocked, false);
});
