/**
 * The RunPod card tells the truth while the simulated endpoint renders (issue 25): "Rendering"
 * with the jobs running there (not "Idle"), when it last answered, RunPod's workers and queue from
 * /health instead of a VRAM bar, and today's spend updated through the event stream without a
 * reload. The RunPod form has the CLI's fields and a "Test connection" that reports success and
 * failure and saves nothing, and it says what a $0 daily budget means.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { instanceRow } from '../../electron/engine/store/instance-store.js';
import { SIM_KEY } from '../helpers/cloud-farm.js';
import { startRunpodSim } from '../simulator/runpod/server.js';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();

test("the RunPod card shows Rendering, the jobs running there, RunPod's counts and today's spend updating live while the endpoint renders", {
  timeout: 90_000,
}, async (ctx) => {
  const sim = await startRunpodSim({
    apiKey: SIM_KEY,
    workers: 2,
    coldStartMs: 1_500,
    comfy: { duration: { fixedMs: 1_500 } },
  });
  ctx.after(() => sim.close());
  const studio = await suite.open(ctx, { instances: [], start: false, config: { runpodPollMs: 100 } }, 'workstations');
  const { page, farm } = studio;
  await page.setViewportSize({ width: 1280, height: 720 });
  await farm.engine.call('cloud.setApiKey', { apiKey: SIM_KEY });
  await farm.engine.call('settings.set', { key: 'burst_budget_usd_per_day', value: 50 });
  await farm.engine.call('settings.set', { key: 'burst_after_s', value: 0 });
  // $360 an hour: a job billed a few seconds costs tens of cents, so the card's two decimals move.
  await farm.engine.call('cloud.addRunpod', {
    name: 'runpod-4090-studio-burst-endpoint',
    endpointId: sim.endpointId,
    apiBase: sim.apiBase,
    gpuName: 'RTX 4090',
    vramGb: 24,
    pricePerHourUsd: 360,
    maxConcurrency: 2,
  });
  farm.startScheduler();
  const card = page.locator('[data-instance="runpod-4090-studio-burst-endpoint"]');
  await farm.waitFor(
    'the endpoint answered /health',
    async () => (await card.getAttribute('data-health')) === 'idle',
    15_000,
  );
  await farm.waitFor(
    "RunPod's workers shown",
    async () =>
      ((await card.locator('[data-testid="endpoint-workers"]').textContent()) ?? '').includes('0 running · 2 idle'),
    15_000,
  );
  assert.notEqual(
    (await card.locator('[data-testid="last-answer"]').textContent())?.trim(),
    'never',
    'it answered, so the card says when',
  );
  assert.equal(
    await card.locator('[data-testid="vram"], [data-testid="queue"]').count(),
    0,
    'no VRAM bar nor ComfyUI queue on an endpoint',
  );
  assert.match(
    (await card.locator('[data-testid="cloud-spent"]').textContent()) ?? '',
    /spent today \$0\.00 of \$50\.00/,
  );
  // A mark on the page: had it reloaded, the mark would be gone.
  await page.evaluate('window.__noReload = 1');

  const ids = await farm.importJobs([{ id: 'sh010' }, { id: 'sh020' }]);
  await farm.waitFor(
    'the card says Rendering',
    async () => (await card.getAttribute('data-health')) === 'busy',
    15_000,
  );
  assert.equal((await card.locator('[data-testid="health"]').textContent())?.trim(), 'Rendering');
  await farm.waitFor(
    'both jobs shown running there',
    async () => (await card.locator('[data-testid="slots"]').textContent())?.trim() === '2/2',
    15_000,
  );
  const now = (await card.locator('[data-testid="current-job"]').textContent()) ?? '';
  assert.ok(now.includes('sh010') && now.includes('sh020'), now);
  await farm.waitFor(
    'the top bar counts them running',
    async () => (await page.locator('[data-summary-state="running"] b').textContent())?.trim() === '2',
    10_000,
  );
  await farm.waitFor(
    "RunPod's queue shows our jobs",
    async () =>
      /[12] in (queue|progress)/.test((await card.locator('[data-testid="endpoint-queue"]').textContent()) ?? ''),
    15_000,
  );
  await studio.screenshot('workstations-runpod-rendering-1280x720');
  await page.setViewportSize({ width: 1440, height: 900 });
  await studio.screenshot('workstations-runpod-rendering-1440x900');

  await farm.waitForStates(ids, ['completed'], 30_000);
  const spend = await farm.engine.call('cloud.spend', {});
  assert.ok(spend.totalUsd >= 0.01, `spent ${spend.totalUsd}`);
  await farm.waitFor(
    "the card shows today's spend without a reload",
    async () =>
      ((await card.locator('[data-testid="cloud-spent"]').textContent()) ?? '').includes(
        `spent today $${spend.totalUsd.toFixed(2)} of $50.00`,
      ),
    10_000,
  );
  assert.equal(await page.evaluate('window.__noReload'), 1, 'the page was not reloaded');
  await farm.waitFor('the card is Idle again', async () => (await card.getAttribute('data-health')) === 'idle', 10_000);
  assert.deepEqual(studio.pageErrors, []);
});

test('the RunPod form has GPU, VRAM and execution timeout, says a $0 budget means never, and Test connection reports failure and success without saving', {
  timeout: 90_000,
}, async (ctx) => {
  const sim = await startRunpodSim({ apiKey: SIM_KEY });
  ctx.after(() => sim.close());
  const studio = await suite.open(ctx, { instances: [], start: false }, 'workstations');
  const { page, farm } = studio;
  await page.setViewportSize({ width: 1280, height: 720 });
  await farm.engine.call('cloud.setApiKey', { apiKey: SIM_KEY });
  const added = await farm.engine.call('cloud.addRunpod', {
    name: 'cloud-sim',
    endpointId: 'mistyped-id',
    apiBase: sim.apiBase,
    gpuName: 'RTX 4090',
    vramGb: 24,
    pricePerHourUsd: 1.1,
    executionTimeoutS: 900,
  });
  farm.startScheduler();
  const card = page.locator('[data-instance="cloud-sim"]');
  await card.waitFor();
  await card.locator('button', { hasText: 'Edit' }).click();
  const form = page.locator('[data-testid="runpod-form"]');
  await form.waitFor();
  assert.equal(await page.locator('[data-field="gpuName"]').inputValue(), 'RTX 4090');
  assert.equal(await page.locator('[data-field="executionTimeoutS"]').inputValue(), '900');
  assert.match((await page.locator('[data-testid="runpod-budget"]').textContent()) ?? '', /is \$0, which means never/);

  await page.locator('[data-testid="runpod-test"]').click();
  const result = page.locator('[data-testid="runpod-test-result"]');
  await result.waitFor({ timeout: 15_000 });
  assert.equal(await result.getAttribute('data-ok'), 'no');
  assert.match((await result.textContent()) ?? '', /404/);

  await page.locator('[data-field="endpointId"]').fill(sim.endpointId);
  await page.locator('[data-testid="runpod-test"]').click();
  await farm.waitFor('the test succeeded', async () => (await result.getAttribute('data-ok')) === 'yes', 15_000);
  assert.match((await result.textContent()) ?? '', /RunPod answered \/health in \d+ ms[\s\S]*1 idle/);
  await studio.screenshot('workstation-runpod-form-tested-1280x720');
  await page.setViewportSize({ width: 1440, height: 900 });
  await studio.screenshot('workstation-runpod-form-tested-1440x900');

  // Cancel: the test saved nothing.
  await page.locator('.modal-foot button', { hasText: 'Cancel' }).click();
  await form.waitFor({ state: 'detached' });
  const row = instanceRow(farm.engine.db, added.id);
  assert.equal(row?.kind === 'runpod' ? row.runpod.endpointId : null, 'mistyped-id');

  // A wrong key is a failure too, in words that say what to check.
  await farm.engine.call('cloud.setApiKey', { apiKey: 'rp_wrong_key_123456' });
  await card.locator('button', { hasText: 'Edit' }).click();
  await page.locator('[data-field="endpointId"]').fill(sim.endpointId);
  await page.locator('[data-field="vramGb"]').fill('48');
  await page.locator('[data-testid="runpod-test"]').click();
  await farm.waitFor('the key refused', async () => (await result.getAttribute('data-ok')) === 'no', 15_000);
  assert.match((await result.textContent()) ?? '', /refused the API key/);
  await page.locator('[data-testid="runpod-save"]').click();
  await form.waitFor({ state: 'detached' });
  const saved = instanceRow(farm.engine.db, added.id);
  assert.equal(saved?.kind === 'runpod' ? saved.runpod.executionTimeoutS : null, 900);
  assert.equal(JSON.parse(saved?.vram_json ?? '{}').totalBytes, 48 * 1024 ** 3);
  assert.deepEqual(studio.pageErrors, []);
});
