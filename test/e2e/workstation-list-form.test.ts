/**
 * The Workstations view's add dialog takes a pasted list, one workstation per line (issue 29 item
 * 7): a bad line is named before anything is sent and nothing is stored; the fixed list is added in
 * one call, names made from hosts where none is given, each probed, and their cards appear.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSimInstance, type SimInstance } from '../simulator/index.js';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();

test('a pasted list names its bad lines and stores nothing, then adds every workstation of the fixed list with their cards', {
  timeout: 90_000,
}, async (ctx) => {
  const sims: SimInstance[] = [];
  for (let i = 0; i < 3; i++) sims.push(await startSimInstance({ gpuName: 'NVIDIA GeForce RTX 4090' }));
  ctx.after(() => Promise.all(sims.map((s) => s.close())));
  const [a, b, c] = sims as [SimInstance, SimInstance, SimInstance];
  const studio = await suite.open(ctx, { instances: [], start: false }, 'workstations');
  const { page, farm } = studio;
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.locator('[data-testid="add-instance"]').click();
  await page.locator('[data-kind="list"]').click();
  const form = page.locator('[data-testid="list-form"]');
  await form.waitFor();
  const list = page.locator('[data-field="list"]');
  await list.fill(
    [
      '# the render room',
      `${a.url} img2img`,
      `lighting-bay-workstation-with-a-long-name-07 ${b.url}`,
      'gpu-09',
      `${c.url}, i2v_video`,
      'two words http://gpu-10:8188',
    ].join('\n'),
  );
  await page.locator('[data-field="tags"]').fill('studio');
  await page.locator('[data-testid="list-save"]').click();
  const error = page.locator('[data-testid="list-error"]');
  await error.waitFor();
  const words = (await error.textContent()) ?? '';
  assert.match(words, /Nothing was added: 2 problem\(s\)/);
  assert.match(words, /line 4: no URL in "gpu-09"/);
  assert.match(words, /line 6: "two words" is more than one name/);
  await studio.screenshot('workstation-add-list-problems-1280x720');
  await page.setViewportSize({ width: 1440, height: 900 });
  await studio.screenshot('workstation-add-list-problems-1440x900');
  assert.equal((await farm.engine.call('instances.list', {})).length, 0, 'nothing stored');

  // A name the farm already has is the engine's problem, named by its line too.
  await farm.engine.call('instances.add', { name: 'taken', url: 'http://127.0.0.1:9' });
  await list.fill([`${a.url} img2img`, `taken ${b.url}`].join('\n'));
  await page.locator('[data-testid="list-save"]').click();
  await page.getByText('line 2: a workstation is already named "taken"').waitFor();
  assert.equal((await farm.engine.call('instances.list', {})).length, 1, 'line 1 was not stored either');

  await list.fill(
    [
      '# the render room',
      `${a.url} img2img`,
      `lighting-bay-workstation-with-a-long-name-07 ${b.url}`,
      `${c.url}, i2v_video`,
    ].join('\n'),
  );
  await page.locator('[data-testid="list-save"]').click();
  await form.waitFor({ state: 'detached' });
  const stored = (await farm.engine.call('instances.list', {})).filter((i) => i.name !== 'taken');
  const port = (url: string) => new URL(url).port;
  assert.deepEqual(
    stored.map((i) => [i.name, i.tags, i.health, i.gpuName]).sort(),
    [
      [`127.0.0.1-${port(a.url)}`, ['studio', 'img2img'], 'idle', 'NVIDIA GeForce RTX 4090'],
      [`127.0.0.1-${port(c.url)}`, ['studio', 'i2v_video'], 'idle', 'NVIDIA GeForce RTX 4090'],
      ['lighting-bay-workstation-with-a-long-name-07', ['studio'], 'idle', 'NVIDIA GeForce RTX 4090'],
    ].sort(),
  );
  for (const i of stored) await page.getByText(i.name, { exact: true }).first().waitFor();
  await studio.screenshot('workstation-added-list-1440x900');
  await page.setViewportSize({ width: 1280, height: 720 });
  await studio.screenshot('workstation-added-list-1280x720');
  const sideways = (await page.evaluate(
    'document.documentElement.scrollWidth > document.documentElement.clientWidth',
  )) as boolean;
  assert.equal(sideways, false, 'no sideways scroll');
  assert.deepEqual(studio.pageErrors, []);
});
