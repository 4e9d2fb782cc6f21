/**
 * Issue 27, in Chromium: on a PostgreSQL farm run by two engines a RunPod endpoint is leased like a
 * LAN workstation, and its card says which engine drives it ("Driven by host · id") beside its
 * workers and RunPod's queue. Two endpoints on two engines go one each. 1280×720 and 1440×900, no
 * sideways scroll.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FAST } from '../helpers/fast-timings.js';
import { SIM_KEY } from '../helpers/cloud-farm.js';
import { secondEngine } from '../helpers/two-engines.js';
import { startRunpodSim } from '../simulator/runpod/server.js';
import { shootAtStudioSizes, studioSuite } from './support/studio.js';

const suite = studioSuite();
const LEASE_MS = 3_000;

test('each RunPod endpoint’s card names the one engine driving it, the two endpoints split between two engines', {
  timeout: 120_000,
}, async (ctx) => {
  const studio = await suite.open(
    ctx,
    { store: 'postgres', instances: [{}, {}], config: { leaseMs: LEASE_MS } },
    'workstations',
  );
  const { page, farm } = studio;
  const sims = await Promise.all(
    ['ep-render-west', 'ep-render-east'].map((endpointId) => startRunpodSim({ apiKey: SIM_KEY, endpointId })),
  );
  ctx.after(() => Promise.all(sims.map((s) => s.close())));
  await farm.engine.call('cloud.setApiKey', { apiKey: SIM_KEY });
  for (const [n, sim] of sims.entries())
    await farm.engine.call('cloud.addRunpod', {
      name: n === 0 ? 'runpod-west-4090-burst' : 'runpod-east-4090-burst',
      endpointId: sim.endpointId,
      apiBase: sim.apiBase,
      gpuName: 'RTX 4090',
      vramGb: 24,
      pricePerHourUsd: 0.69,
    });
  const other = secondEngine(ctx, farm);
  other.startScheduler({ ...FAST, leaseMs: LEASE_MS });
  const mine = farm.engine.leases?.identity.id;
  const theirs = other.leases?.identity.id;
  assert.ok(mine && theirs, 'both engines lease workstations');

  const endpointDrivers = `['runpod-west-4090-burst', 'runpod-east-4090-burst'].map((n) => document.querySelector('article[data-instance="' + n + '"] [data-testid="driven-by"]')?.getAttribute('data-engine') ?? null)`;
  await page.waitForFunction(
    `(() => { const d = ${endpointDrivers}; return d.includes(${JSON.stringify(mine)}) && d.includes(${JSON.stringify(theirs)}); })()`,
    undefined,
    { timeout: 30_000 },
  );
  const card = page.locator('article[data-instance="runpod-west-4090-burst"]');
  assert.match(await card.locator('[data-testid="driven-by"]').innerText(), /^Driven by \S+ · [0-9a-f]{8}/);
  await shootAtStudioSizes(page, 'runpod-card-driver', () => card.scrollIntoViewIfNeeded());
  assert.deepEqual(studio.pageErrors, []);
});
