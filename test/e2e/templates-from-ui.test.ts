import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURE_TEMPLATES } from '../helpers/farm.js';
import { tempDirFor } from '../helpers/temp-dir.js';
import { shotList, studioSuite } from './support/studio.js';

const suite = studioSuite();

test('on an empty farm the guide leads to a template registered from the UI, which the next import uses and the farm renders', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{ duration: { fixedMs: 100 } }], templates: [] });
  const { page, farm } = studio;
  const dir = tempDirFor(ctx);
  // What ComfyUI's Workflow → Export (API) saves: the nodes alone, no Shotfarm fields.
  const workflow = (JSON.parse(readFileSync(join(FIXTURE_TEMPLATES, 'txt2img.json'), 'utf8')) as { workflow: unknown })
    .workflow;
  const exported = join(dir, 'my workflow.json');
  writeFileSync(exported, JSON.stringify(workflow, null, 2));
  const uiFormat = join(dir, 'editor-save.json');
  writeFileSync(uiFormat, JSON.stringify({ nodes: [{ id: 1, type: 'KSampler' }], links: [] }));

  const guide = page.locator('[data-testid="first-run-guide"]');
  await guide.waitFor();
  assert.equal(await guide.locator('[data-step="1"]').getAttribute('data-done'), 'no');
  assert.equal(await guide.locator('[data-step="2"]').getAttribute('data-done'), 'yes', 'the farm has a workstation');
  await studio.screenshot('first-run-guide');
  await page.locator('[data-testid="guide-template"]').click();
  const dialog = page.locator('[data-testid="template-dialog"]');
  await dialog.waitFor();

  // The editor's own save format: the parser's words say what to do instead.
  await page.locator('[data-testid="template-file"]').setInputFiles(uiFormat);
  await page.locator('[data-testid="template-errors"]', { hasText: 'Export (API)' }).waitFor();
  assert.equal(await page.locator('[data-testid="template-register"]').isDisabled(), true);

  await page.locator('[data-testid="template-file"]').setInputFiles(exported);
  await page.locator('[data-testid="workflow-inputs"]').waitFor();
  // The usual inputs start ticked: each take's seed and the prompt.
  assert.equal(await page.locator('[data-param-name="3.seed"]').inputValue(), 'seed');
  assert.equal(await page.locator('[data-param-name="6.text"]').inputValue(), 'prompt');
  assert.equal(await page.locator('[data-template-field="name"]').inputValue(), 'my-workflow');
  await page.locator('[data-template-field="name"]').fill('ui-txt2img');
  await page.locator('[data-template-field="vramGb"]').fill('8');
  await page.locator('[data-expose="3.steps"]').check();
  assert.equal(await page.locator('[data-param-name="3.steps"]').inputValue(), 'steps');
  // Two inputs under one name are refused before anything is sent.
  await page.locator('[data-expose="7.text"]').check();
  await page.locator('[data-param-name="7.text"]').fill('prompt');
  await page.locator('[data-testid="template-errors"]', { hasText: 'Two inputs are named "prompt"' }).waitFor();
  await page.locator('[data-expose="7.text"]').uncheck();
  const verdict = page.locator('[data-testid="template-verdict"][data-status="ok"]');
  await verdict.waitFor();
  assert.match((await verdict.textContent()) ?? '', /^Ready: ui-txt2img v1 · keyframe · 8 GB · \d+ s · 3 parameters$/);
  await studio.screenshot('template-dialog');
  await page.locator('[data-testid="template-register"]').click();
  await dialog.waitFor({ state: 'detached' });
  await page.locator('[data-testid="first-run-guide"] [data-step="1"][data-done="yes"]').waitFor();
  const [stored] = await farm.engine.call('templates.list', {});
  assert.deepEqual(
    [stored?.name, stored?.vramGb, stored?.parameters.map((p) => p.name).sort()],
    ['ui-txt2img', 8, ['prompt', 'seed', 'steps']],
  );

  // The next import uses it, and the farm renders with it.
  const list = JSON.parse(shotList([{ id: 'sh010', steps: 6 }])) as { shots: { template: string }[] };
  list.shots[0]!.template = 'ui-txt2img';
  const file = join(dir, 'ep101.json');
  writeFileSync(file, JSON.stringify(list));
  await page.locator('[data-testid="guide-import"]').click();
  await page.locator('[data-testid="import-file"]').setInputFiles(file);
  await page.waitForFunction(`document.querySelectorAll('[data-row-status="new"]').length === 1`);
  await page.locator('[data-testid="import-confirm"]').click();
  await page.locator('[data-testid="import-dialog"]').waitFor({ state: 'detached' });
  const { rows } = await farm.engine.call('jobs.list', {});
  assert.equal(rows[0]?.template, 'ui-txt2img');
  await farm.waitForStates([rows[0]!.id], ['completed'], 30_000);
  await guide.waitFor({ state: 'detached' });
  assert.deepEqual(studio.pageErrors, []);
});
