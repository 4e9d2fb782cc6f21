import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { RESOURCES, tableCounts } from '../helpers/engine.js';
import { dropFile, studioSuite } from './support/studio.js';

const suite = studioSuite();

test('a binary file, a broken JSON file and a list with bad rows get a clear message and store nothing', {
  timeout: 60_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{}], start: false });
  const { page, farm } = studio;
  const before = tableCounts(farm.engine);
  const error = page.locator('[data-testid="import-error"]');
  const close = () => page.keyboard.press('Escape');

  await dropFile(page, 'plate.png', readFileSync(`${RESOURCES}samples/plates/sh010.png`), 'image/png');
  await error.waitFor();
  assert.match((await error.textContent()) ?? '', /plate\.png is not a text file/);
  assert.equal(await page.locator('[data-testid="import-confirm"]').isDisabled(), true);
  await studio.screenshot('import-refused');
  await close();

  await dropFile(
    page,
    'broken.json',
    '{ "project": "P", "episode": "E",\n  "shots": [ { "id": "sh010", }\n',
    'application/json',
  );
  await error.waitFor();
  assert.match((await error.textContent()) ?? '', /broken\.json/);
  assert.match((await error.textContent()) ?? '', /line \d+/i);
  await close();

  await dropFile(page, 'empty.csv', '   \n', 'text/csv');
  await error.waitFor();
  assert.match((await error.textContent()) ?? '', /empty\.csv is empty/);
  await close();

  // A CSV whose rows name a template that does not exist and a bad priority: errors per row.
  const csv = 'Shot,Stage,Template,Priority\nsh010,keyframe,no-such-template,normal\nsh020,keyframe,txt2img,urgent\n';
  await dropFile(page, 'bad_rows.csv', csv, 'text/csv');
  await page.waitForFunction(`document.querySelectorAll('[data-row-status="error"]').length === 2`);
  const problems = (await page.locator('[data-testid="preview-rows"] .problems').allTextContents()).join(' | ');
  assert.match(problems, /no-such-template/);
  assert.match(problems, /urgent|priority/i);
  assert.equal(await page.locator('[data-testid="import-confirm"]').textContent(), 'Nothing to import');
  assert.equal(await page.locator('[data-testid="import-confirm"]').isDisabled(), true);
  await studio.screenshot('import-bad-rows');
  await close();

  assert.deepEqual(tableCounts(farm.engine), before, 'the store is unchanged');
  assert.deepEqual(studio.pageErrors, []);
});

test('a Kitsu CSV picked with the Import button takes project/stage/template defaults from the dialog, re-checked without a button', {
  timeout: 60_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{}], start: false });
  const { page, farm } = studio;
  await page.locator('[data-testid="import-file"]').setInputFiles(`${RESOURCES}samples/kitsu_shots.csv`);
  await page.locator('[data-testid="mapping"]').waitFor();
  // Without a project, stage and template the rows cannot be jobs yet.
  await page.waitForFunction(`document.querySelectorAll('[data-row-status="error"]').length > 0`);
  assert.equal(await page.locator('[data-testid="recheck"]').count(), 0, 'no "Check again" button');
  await page.locator('[data-mapping="project"]').fill('Moonfall');
  // Stages and templates are chosen from what is registered; the template list follows the stage.
  assert.deepEqual(await page.locator('[data-mapping="stage"] option').allTextContents(), [
    '(from file)',
    'keyframe',
    'motion',
    'post',
  ]);
  await page.locator('[data-mapping="stage"]').selectOption('keyframe');
  assert.deepEqual(await page.locator('[data-mapping="template"] option').allTextContents(), [
    '(from file)',
    'txt2img · keyframe',
  ]);
  await page.locator('[data-mapping="template"]').selectOption('txt2img');
  await page.waitForFunction(
    `document.querySelectorAll('[data-row-status="error"]').length === 0 && document.querySelectorAll('[data-row-status="new"]').length > 0`,
  );
  await page.locator('[data-testid="mapping-state"]', { hasText: 'preview up to date' }).waitFor();
  const newRows = await page.locator('[data-row-status="new"]').count();
  await studio.screenshot('import-csv-mapping');
  await page.locator('[data-testid="import-confirm"]').click();
  await page.locator('[data-testid="import-dialog"]').waitFor({ state: 'detached' });
  const jobs = await farm.engine.call('jobs.list', {});
  assert.equal(jobs.total, newRows);
  assert.ok(jobs.rows.every((j) => j.project === 'Moonfall' && j.stage === 'keyframe' && j.template === 'txt2img'));
  await page.waitForFunction(`document.querySelectorAll('.row[data-shot]').length === ${newRows}`);
  assert.deepEqual(studio.pageErrors, []);
});

test('adding a workstation with a wrong URL shows the engine message and registers nothing', {
  timeout: 60_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{}], start: false }, 'workstations');
  const { page, farm } = studio;
  await page.locator('[data-testid="add-instance"]').click();
  await page.locator('[data-field="url"]').fill('gpu-07:8188');
  await page.locator('[data-field="name"]').fill('gpu-07');
  await page.locator('[data-testid="instance-save"]').click();
  const error = page.locator('[data-testid="instance-error"]');
  await error.waitFor();
  assert.match(
    (await error.textContent()) ?? '',
    /must be an http:\/\/ or https:\/\/ URL such as http:\/\/gpu-01:8188/,
  );
  await studio.screenshot('workstation-bad-url');

  await page.locator('[data-field="url"]').fill(farm.sims[0]?.url ?? '');
  await page.locator('[data-testid="instance-save"]').click();
  await error.waitFor();
  assert.match((await error.textContent()) ?? '', /already uses/);
  await page.keyboard.press('Escape');
  assert.equal((await farm.engine.call('instances.list', {})).length, 1);
  assert.deepEqual(studio.pageErrors, []);
});
