import { test } from 'node:test';
import assert from 'node:assert/strict';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();

test('Failures name the project and episode, hide a take superseded by a new take (one click shows it), and the badge clears once every failure is handled', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{ script: ['error'], duration: { fixedMs: 150 } }] });
  const { page, farm } = studio;
  const [failedId, okId] = await farm.importJobs([{ id: 'sh010' }, { id: 'sh020' }], 'Moonfall', 'ep102');
  await farm.waitForStates([failedId!, okId!], ['completed', 'failed_final'], 30_000);
  const badge = page.locator('[data-tab="failures"] .tab-count');
  await page.waitForFunction(`document.querySelector('[data-tab="failures"] .tab-count')?.textContent === '1'`);

  await page.locator('[data-tab="failures"]').click();
  await page.locator('[data-testid="failure-group"] .failure-head').click();
  const line = page.locator(`.failure-job[data-job-id="${failedId}"]`);
  await line.waitFor();
  assert.match((await line.locator('.failure-path').textContent()) ?? '', /^Moonfall \/ ep102 \/ sh010$/);
  await studio.screenshot('failures-open');

  await line.locator('[data-action="newTake"]').click();
  await page.locator('.empty-title', { hasText: 'No failures to handle' }).waitFor();
  await badge.waitFor({ state: 'detached' });
  assert.match(
    (await page.locator('[data-testid="failures-summary"]').textContent()) ?? '',
    /^0 failed jobs to handle/,
  );
  await page.locator('[data-testid="toggle-superseded"]').click();
  await page.locator('[data-testid="failure-group"] .failure-head').click();
  assert.equal(await line.getAttribute('data-superseded'), 'yes');
  assert.equal((await line.locator('[data-testid="superseded"]').textContent())?.trim(), 'superseded by take 2');
  assert.equal(await line.locator('[data-action="newTake"]').isDisabled(), true);
  await studio.screenshot('failures-superseded');
  const take2 = (await farm.engine.call('jobs.list', { filter: { shot: 'sh010' } })).rows.find((j) => j.take === 2);
  await farm.waitForStates([take2!.id], ['completed'], 30_000);
  assert.deepEqual(studio.pageErrors, []);
});

test('Test connection shows what a ComfyUI server is before it is saved; Disable says what happens to the running prompt', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(
    ctx,
    { instances: [{ duration: { fixedMs: 4_000 }, gpuName: 'NVIDIA GeForce RTX 4090' }] },
    'workstations',
  );
  const { page, farm } = studio;
  await page.locator('[data-testid="add-instance"]').click();
  await page.locator('[data-field="url"]').fill('gpu-07:8188');
  await page.locator('[data-testid="instance-test"]').click();
  const error = page.locator('[data-testid="instance-error"]');
  await error.waitFor();
  const words = (await error.textContent()) ?? '';
  assert.match(words, /^The ComfyUI URL must be an http:\/\/ or https:\/\/ URL/);
  assert.doesNotMatch(words, /instances\.|Invalid input/, 'no API method names');

  await page.locator('[data-field="url"]').fill(farm.sims[0]!.url);
  await page.locator('[data-testid="instance-test"]').click();
  const found = page.locator('[data-testid="connection-result"][data-ok="yes"]');
  await found.waitFor();
  assert.equal(await found.locator('[data-testid="found-gpu"]').textContent(), 'NVIDIA GeForce RTX 4090');
  assert.match(
    (await found.locator('[data-testid="found-vram"]').textContent()) ?? '',
    /^\d+\.\d GB \(\d+\.\d GB free\)$/,
  );
  assert.match((await found.locator('[data-testid="found-version"]').textContent()) ?? '', /^\d+\.\d+\.\d+/);
  assert.ok(Number((await found.locator('[data-testid="found-nodes"]').textContent())?.replace(/,/g, '')) > 5);
  assert.equal(await page.locator('[data-field="name"]').inputValue(), '127.0.0.1', 'a name to start from');
  await studio.screenshot('workstation-test-connection');
  assert.equal((await farm.engine.call('instances.list', {})).length, 1, 'testing saved nothing');
  await page.keyboard.press('Escape');

  const [id] = await farm.importJobs([{ id: 'sh010' }]);
  await farm.waitFor('the prompt running', async () => (await farm.job(id!)).attempt?.phase === 'running');
  await page.locator('[data-instance="sim-0"] [data-testid="current-job"]', { hasText: 'sh010' }).waitFor();
  await page.locator('[data-instance="sim-0"] [data-action="disable"]').click();
  const effect = page.locator('[data-testid="admin-effect"]');
  await effect.waitFor();
  assert.match(
    (await effect.textContent()) ?? '',
    /sim-0 is rendering sh010 · keyframe · take 1\. That prompt is not interrupted: it finishes on ComfyUI and its output is collected\./,
  );
  await studio.screenshot('workstation-disable-confirm');
  const focused = () => page.evaluate('document.activeElement?.getAttribute("data-testid") ?? null');
  assert.equal(await focused(), 'confirm-cancel', 'Cancel has the focus: a stray Enter disables nothing');
  await page.locator('[data-testid="confirm-ok"]').click();
  await page.locator('[data-instance="sim-0"][data-admin="disabled"]').waitFor();
  await farm.waitForStates([id!], ['completed'], 30_000);
  assert.deepEqual(studio.pageErrors, []);
});

test('in a browser the number settings are editable by the operator (issue 25), the folder settings shown with the command that changes them', {
  timeout: 60_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{}], start: false }, 'settings');
  const { page, farm } = studio;
  await farm.engine.call('settings.set', { key: 'retry_attempts', value: 6 });
  await page.locator('[data-setting="retry_attempts"]').waitFor();
  await page.locator('[data-testid="settings-note"].alert-ok').waitFor();
  await page.waitForFunction(`document.querySelector('[data-setting-input="retry_attempts"]')?.value === '6'`);
  assert.equal(
    await page.locator('[data-setting-input="output_root"]').count(),
    0,
    'a folder is not editable over the network',
  );
  assert.match(
    (await page.locator('[data-setting="output_root"]').textContent()) ?? '',
    /shotfarm settings set output_root PATH on the farm host/,
  );
  assert.equal(
    await page.locator('[data-testid="setting"]').count(),
    (await farm.engine.call('settings.list', {})).length,
  );
  await page.locator('[data-testid="templates-panel"] [data-template="txt2img"]').waitFor();
  await studio.screenshot('settings');
  assert.deepEqual(studio.pageErrors, []);
});
