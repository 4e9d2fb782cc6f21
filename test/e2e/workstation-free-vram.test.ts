import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../electron/server/server.js';
import { openAppPage } from '../helpers/browser.js';
import { startFarm } from '../helpers/farm.js';
import { addPerson, callAs } from '../helpers/people.js';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();

test('Free VRAM is offered on an idle workstation only, and its card shows the models unloaded after the click', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(
    ctx,
    { instances: [{ duration: { fixedMs: 2_500 }, gpuName: 'NVIDIA GeForce RTX 4090' }] },
    'workstations',
  );
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
  await page.waitForFunction(
    `/ComfyUI [1-9]/.test(document.querySelector('.instance[data-instance="sim-0"] .vram-legend')?.textContent ?? '')`,
  );
  for (const [w, h] of [
    [1280, 720],
    [1440, 900],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await studio.screenshot(`workstation-free-vram-${w}`);
  }
  await button.click();
  await page.waitForFunction(
    `/ComfyUI 0(\\.0)? /.test(document.querySelector('.instance[data-instance="sim-0"] .vram-legend')?.textContent ?? '')`,
  );
  assert.equal(farm.sims[0]!.freeRequests(), 1);
  await page.locator('.toast', { hasText: 'sim-0 unloaded its models' }).waitFor();
  await studio.screenshot('workstation-free-vram-after');
  assert.deepEqual(studio.pageErrors, []);
});

test('Free VRAM is shown to an operator and not to an artist, whose call is refused and sends nothing', {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await startFarm({ instances: [{}], config: { prefetch: false } });
  ctx.after(() => farm.close());
  const server = await startServer({ engine: farm.engine, staticDir: suite.built.dir });
  ctx.after(() => server.close());
  const artistToken = await addPerson(farm.engine, 'mira', 'artist');
  const operatorToken = await addPerson(farm.engine, 'otto', 'operator');
  const artist = await openAppPage(suite.browser, `${server.url}/?token=${artistToken}#/workstations`);
  ctx.after(() => artist.context.close());
  const operator = await openAppPage(suite.browser, `${server.url}/?token=${operatorToken}#/workstations`);
  ctx.after(() => operator.context.close());

  await operator.page.locator('.instance[data-instance="sim-0"] [data-action="free-vram"]').waitFor();
  await artist.page.locator('.instance[data-instance="sim-0"] [data-testid="health"]', { hasText: 'Idle' }).waitFor();
  assert.equal(
    await artist.page.locator('.instance[data-instance="sim-0"] [data-action="free-vram"]').count(),
    0,
    'not offered to an artist',
  );
  const refused = await callAs(server.url, artistToken, 'instances.freeVram', { id: 'sim-0' });
  assert.equal(refused.status, 403);
  assert.equal(farm.sims[0]!.freeRequests(), 0);
  assert.deepEqual([...artist.errors, ...operator.errors], []);
});
