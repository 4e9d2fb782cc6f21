/**
 * The Workstations view's add form offers a RunPod endpoint beside a ComfyUI server (issue 18): its
 * endpoint id, price per hour, jobs at once and tags go to cloud.addRunpod, and the new card is
 * the endpoint's. The form never asks for the API key. A RunPod card's Edit opens the same form
 * (issue 24), and saving it changes the endpoint the running farm asks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { instanceRow } from '../../electron/engine/store/instance-store.js';
import { SIM_KEY } from '../helpers/cloud-farm.js';
import { startRunpodSim } from '../simulator/runpod/server.js';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();

test("the add form's RunPod kind registers an endpoint with its id, price, concurrency and tags", {
  timeout: 60_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [], start: false }, 'workstations');
  const { page, farm } = studio;
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.locator('[data-testid="add-instance"]').click();
  await page.locator('[data-kind="runpod"]').click();
  const form = page.locator('[data-testid="runpod-form"]');
  await form.waitFor();
  assert.equal(await form.locator('input[type="password"]').count(), 0, 'no API key field');
  await page.locator('[data-field="endpointId"]').fill('abc123xyz');
  await page.locator('[data-field="name"]').fill('runpod-4090');
  await page.locator('[data-field="pricePerHourUsd"]').fill('1.10');
  await page.locator('[data-field="maxConcurrency"]').fill('2');
  await page.locator('[data-field="tags"]').fill('img2img, i2v_video');
  await studio.screenshot('workstation-add-runpod-1280x720');

  await page.locator('[data-testid="runpod-save"]').click();
  await form.waitFor({ state: 'detached' });
  const [endpoint] = await farm.engine.call('instances.list', {});
  assert.equal(endpoint?.name, 'runpod-4090');
  assert.equal(endpoint?.url, 'https://api.runpod.ai/v2/abc123xyz');
  assert.equal(endpoint?.maxConcurrency, 2);
  assert.deepEqual(endpoint?.tags, ['img2img', 'i2v_video']);
  const row = instanceRow(farm.engine.db, endpoint!.id);
  assert.equal(row?.kind, 'runpod');
  assert.equal(row?.kind === 'runpod' ? row.runpod.pricePerHourUsd : null, 1.1);
  assert.deepEqual(studio.pageErrors, []);
});

test('the RunPod kind says what is wrong before sending, and going back to ComfyUI server shows its form', {
  timeout: 60_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [], start: false }, 'workstations');
  const { page, farm } = studio;
  await page.locator('[data-testid="add-instance"]').click();
  await page.locator('[data-kind="runpod"]').click();
  await page.locator('[data-field="endpointId"]').fill('abc/123');
  await page.locator('[data-testid="runpod-save"]').click();
  assert.match(
    (await page.locator('[data-testid="runpod-error"]').textContent()) ?? '',
    /endpoint id is letters, digits/,
  );
  await page.locator('[data-field="endpointId"]').fill('abc123');
  await page.locator('[data-field="name"]').fill('rp');
  await page.locator('[data-testid="runpod-save"]').click();
  assert.match((await page.locator('[data-testid="runpod-error"]').textContent()) ?? '', /price per hour/);
  await page.locator('[data-kind="comfyui"]').click();
  await page.locator('[data-testid="instance-form"]').waitFor();
  assert.equal((await farm.engine.call('instances.list', {})).length, 0);
  assert.deepEqual(studio.pageErrors, []);
});

test('Edit on a RunPod card opens the RunPod form, and saving it moves the farm to the new endpoint id and price', {
  timeout: 60_000,
}, async (ctx) => {
  const sim = await startRunpodSim({ apiKey: SIM_KEY });
  ctx.after(() => sim.close());
  const studio = await suite.open(ctx, { instances: [], start: false, config: { runpodPollMs: 40 } }, 'workstations');
  const { page, farm } = studio;
  await farm.engine.call('cloud.setApiKey', { apiKey: SIM_KEY });
  // A mistyped endpoint id: RunPod answers 404 for it, so the card goes unhealthy.
  const added = await farm.engine.call('cloud.addRunpod', {
    name: 'cloud-sim',
    endpointId: 'mistyped-id',
    apiBase: sim.apiBase,
    pricePerHourUsd: 1,
    tags: ['img2img'],
  });
  farm.startScheduler();
  const card = page.locator('[data-instance="cloud-sim"]');
  await farm.waitFor(
    'the mistyped endpoint is unhealthy',
    async () => (await card.getAttribute('data-health')) === 'unhealthy',
    15_000,
  );

  await card.locator('button', { hasText: 'Edit' }).click();
  const form = page.locator('[data-testid="runpod-form"]');
  await form.waitFor();
  assert.equal(await page.locator('[data-testid="instance-form"]').count(), 0, 'not the ComfyUI form');
  assert.equal(await form.locator('[data-field="url"]').count(), 0, 'no URL to rewrite');
  assert.equal(await form.locator('[data-kind]').count(), 0, 'an endpoint stays an endpoint');
  assert.equal(await page.locator('[data-field="endpointId"]').inputValue(), 'mistyped-id');
  assert.equal(await page.locator('[data-field="pricePerHourUsd"]').inputValue(), '1');
  assert.equal(await page.locator('[data-field="tags"]').inputValue(), 'img2img');
  await page.locator('[data-field="endpointId"]').fill(sim.endpointId);
  await page.locator('[data-field="pricePerHourUsd"]').fill('2.5');
  await page.setViewportSize({ width: 1280, height: 720 });
  await studio.screenshot('workstation-edit-runpod-1280x720');
  await page.setViewportSize({ width: 1440, height: 900 });
  await studio.screenshot('workstation-edit-runpod-1440x900');
  await page.locator('[data-testid="runpod-save"]').click();
  await form.waitFor({ state: 'detached' });

  const [card2] = await farm.engine.call('instances.list', {});
  assert.equal(card2?.id, added.id, 'the same workstation, edited');
  assert.equal(card2?.url, `${sim.apiBase}/${sim.endpointId}`);
  assert.equal(card2?.kind === 'runpod' ? card2.endpoint.endpointId : null, sim.endpointId);
  assert.equal(card2?.kind === 'runpod' ? card2.endpoint.pricePerHourUsd : null, 2.5);
  assert.deepEqual(card2?.tags, ['img2img']);
  // The running farm asks the new endpoint now: it answers, and the card says so.
  await farm.waitFor(
    'the edited endpoint answers',
    async () => (await card.getAttribute('data-health')) === 'idle',
    15_000,
  );
  assert.deepEqual(studio.pageErrors, []);
});
