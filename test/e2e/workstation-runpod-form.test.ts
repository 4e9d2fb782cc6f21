/**
 * The Workstations view's add form offers a RunPod endpoint beside a ComfyUI server (issue 18): its
 * endpoint id, price per hour, jobs at once and tags go to cloud.addRunpod, and the new card is
 * the endpoint's. The form never asks for the API key.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { instanceRow } from '../../electron/engine/store/instance-store.js';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();

test('the add form\'s RunPod kind registers an endpoint with its id, price, concurrency and tags', { timeout: 60_000 }, async (ctx) => {
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
  assert.equal(instanceRow(farm.engine.db, endpoint!.id)?.price_per_hour_usd, 1.1);
  assert.equal(instanceRow(farm.engine.db, endpoint!.id)?.kind, 'runpod');
  assert.deepEqual(studio.pageErrors, []);
});

test('the RunPod kind says what is wrong before sending, and going back to ComfyUI server shows its form', { timeout: 60_000 }, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [], start: false }, 'workstations');
  const { page, farm } = studio;
  await page.locator('[data-testid="add-instance"]').click();
  await page.locator('[data-kind="runpod"]').click();
  await page.locator('[data-field="endpointId"]').fill('abc/123');
  await page.locator('[data-testid="runpod-save"]').click();
  assert.match((await page.locator('[data-testid="runpod-error"]').textContent()) ?? '', /endpoint id is letters, digits/);
  await page.locator('[data-field="endpointId"]').fill('abc123');
  await page.locator('[data-field="name"]').fill('rp');
  await page.locator('[data-testid="runpod-save"]').click();
  assert.match((await page.locator('[data-testid="runpod-error"]').textContent()) ?? '', /price per hour/);
  await page.locator('[data-kind="comfyui"]').click();
  await page.locator('[data-testid="instance-form"]').waitFor();
  assert.equal((await farm.engine.call('instances.list', {})).length, 0);
  assert.deepEqual(studio.pageErrors, []);
});
