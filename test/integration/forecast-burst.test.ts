/**
 * The forecast counts RunPod burst as the farm would use it (issue 28 item 5): with a RunPod endpoint
 * healthy and burst allowed, jobs that would wait past burst_after_s are counted on its workers and
 * the episode ends sooner than on the LAN alone; the forecast says so, and says why not when burst
 * is off or today's budget is spent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { burstWords } from '../../shared/forecast.js';
import { cloudFarmFor } from '../helpers/cloud-farm.js';

test('the forecast counts the RunPod workers while burst is allowed, and says why not when it is off', async (t) => {
  // One slow LAN GPU (jobs 20 s each) and an endpoint of 2 workers; burst after 30 s of waiting.
  const { farm } = await cloudFarmFor(t, {
    farm: { instances: [{ gpuName: 'SIM GPU', duration: { fixedMs: 20_000 } }] },
    budgetUsd: 50,
    burstAfterS: 30,
    endpoint: { maxConcurrency: 2 },
  });
  const e = farm.engine;
  await farm.importJobs(Array.from({ length: 12 }, (_, i) => ({ id: `sh${String(i).padStart(3, '0')}` })));
  const episode = () => e.forecast.compute(Date.now()).groups.find((g) => g.kind === 'episode');
  await farm.waitFor('a forecast of the episode', () => episode()?.p50At != null, 20_000);

  const counted = e.forecast.compute(Date.now());
  assert.equal(counted.burst?.counted, true, JSON.stringify(counted.burst));
  assert.equal(counted.burst?.workers, 2);
  assert.ok((counted.burst?.jobs ?? 0) > 0, 'jobs past 30 s of waiting are counted on the endpoint');
  assert.match(
    burstWords(counted.burst as NonNullable<typeof counted.burst>, Date.now()),
    /^incl\. up to 2 RunPod workers, \$50 of \$50 left today — ≈ \d+ jobs? there/,
  );
  const withCloud = counted.groups.find((g) => g.kind === 'episode')?.p50At as number;

  await e.call('settings.set', { key: 'burst_budget_usd_per_day', value: 0 });
  const off = e.forecast.compute(Date.now());
  assert.equal(off.burst?.counted, false);
  assert.equal(
    burstWords(off.burst as NonNullable<typeof off.burst>, Date.now()),
    'RunPod not counted: cloud burst is off (burst_budget_usd_per_day is 0)',
  );
  const lanOnly = off.groups.find((g) => g.kind === 'episode')?.p50At as number;
  assert.ok(lanOnly > withCloud + 60_000, `the LAN alone ends later: ${(lanOnly - withCloud) / 1000} s`);
});
