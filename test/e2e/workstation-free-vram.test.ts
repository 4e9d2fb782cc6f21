import { test } from 'node:test';
import assert from 'node:assert/strict';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();

test('Free VRAM is offered on an idle workstation only, and its card shows the models unloaded after the click', { timeout: 90_000 }, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{ duration: { fixedMs: 2_500 }, gpuName: 'NVIDIA GeForce RTX 4090' }] }, 'workstations');
  const { page, farm } = studio;
  const card = page.locator('.instance[data-instance="sim-0"]');
  const button = card.locator('[data-action="free-vram"]');
  const [id] = await farm.importJobs([{ id: 'sh010' }]);
  await farm.waitForStates([id!], ['running']);
  await card.locator('[data-testid="health"]', { hasText: 'Rendering' }).waitFor();
  assert.equal(await button.count(), 0, 'not offered while it renders');

  await farm.waitForStates([id!], ['completed'], 30_000);
  await button.waitFor();
  // The model the job loaded stays on the card until freed.
  await page.waitForFunction(`/ComfyUI [1-9]/.test(document.querySelector('.instance[data-instance="sim-0"] .vram-legend')?.textContent ?? '')`);
  for (const [w, h] of [[1280, 720], [1440, 900]] as const) {
    await page.setViewportSize({ width: w, height: h });
    await studio.screenshot(`workstation-free-vram-${w}`);
  }
  await button.click();
  await page.waitForFunction(`/ComfyUI 0(\\.0)? /.test(document.querySelector('.instance[data-instance="sim-0"] .vram-legend')?.textContent ?? '')`);
  assert.equal(farm.sims[0]!.freeRequests(), 1);
  await page.locator('.toast', { hasText: 'sim-0 unloaded its models' }).waitFor();
  await studio.screenshot('workstation-free-vram-after');
  assert.deepEqual(studio.pageErrors, []);
});
