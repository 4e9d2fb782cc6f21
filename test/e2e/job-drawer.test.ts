/**
 * The job drawer: a row's click (or Enter) opens it on the job the address names; it shows the shot
 * path, the resolved parameters the prompt sent (the shot's, the seed, the template's defaults) and
 * every attempt with its workstation and outcome; the link reopens it after a reload; Esc closes it.
 * A running job's row and drawer show node k of N beside the sampler's step n/m.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { row, studioSuite } from './support/studio.js';

const suite = studioSuite();

test('the drawer shows the shot path, resolved parameters and every attempt, and its link reopens it', {
  timeout: 90_000,
}, async (ctx) => {
  // The first prompt gets a 500 (retried on the next try), so the job has two attempts.
  const studio = await suite.open(ctx, { instances: [{ script: ['500'], duration: { fixedMs: 300 } }] });
  const { page, farm } = studio;
  const [id] = await farm.importJobs(
    [{ id: 'sq010_sh010', parameters: { prompt: 'Mira looks up', steps: 9 } }],
    'Moonfall',
    'ep101',
  );
  await farm.waitForStates([id!], ['completed'], 30_000);
  const seed = (await farm.job(id!)).seed;

  await page.locator('[data-preset="done"]').click();
  await row(page, 'sq010_sh010').click();
  const drawer = page.locator(`[data-testid="job-drawer"][data-job-id="${id}"]`);
  await drawer.waitFor();
  assert.equal(
    new URL(page.url()).hash,
    `#/queue/job/${id}?view=done`,
    'the address names the job, beside the view it was opened from',
  );
  assert.equal(
    (await drawer.locator('[data-testid="shot-path"]').textContent())?.replace(/\s+/g, ' '),
    'Moonfallep101sq010sq010_sh010keyframetake 1',
  );

  const param = (name: string) => drawer.locator(`[data-testid="resolved-parameters"] tr[data-param="${name}"]`);
  await param('prompt').waitFor();
  assert.match((await param('prompt').textContent()) ?? '', /Mira looks up.*shot list/);
  assert.equal(await param('prompt').getAttribute('data-source'), 'shot');
  assert.match((await param('steps').textContent()) ?? '', /9/);
  assert.equal(await param('seed').getAttribute('data-source'), 'seed');
  assert.match((await param('seed').textContent()) ?? '', new RegExp(String(seed)));
  assert.equal(
    await param('width').getAttribute('data-source'),
    'template',
    "a parameter the shot did not set keeps the template's value",
  );
  assert.match((await drawer.locator('[data-testid="template-version"]').textContent()) ?? '', /txt2img v1/);

  const attempts = drawer.locator('[data-testid="attempts"] tbody tr[data-attempt]');
  await page.waitForFunction(
    `document.querySelectorAll('[data-testid="job-drawer"] [data-testid="attempts"] tbody tr[data-attempt]').length === 2`,
  );
  assert.match((await attempts.nth(0).textContent()) ?? '', /#1.*retry.*sim-0/);
  // In the drawer an attempt's reason has its own line under it.
  assert.match(
    (await drawer.locator('[data-testid="attempts"] tr[data-attempt-reason="1"]').textContent()) ?? '',
    /500/,
  );
  assert.match((await attempts.nth(1).textContent()) ?? '', /#2.*completed.*sim-0/);

  await drawer.locator('[data-testid="workflow-toggle"]').click();
  const json = JSON.parse((await drawer.locator('[data-testid="workflow-json"]').textContent()) ?? '{}') as Record<
    string,
    { inputs: Record<string, unknown> }
  >;
  assert.equal(json['6']?.inputs.text, 'Mira looks up', 'the workflow as posted carries the shot parameter');
  assert.equal(json['3']?.inputs.seed, seed);
  await drawer.locator('[data-testid="outputs"] .output').first().waitFor();
  await studio.screenshot('drawer-completed');
  await page.setViewportSize({ width: 1280, height: 720 });
  await studio.screenshot('drawer-completed-1280x720');
  await page.setViewportSize({ width: 1440, height: 900 });

  // The output opens full size; Esc closes that first, then the drawer.
  await drawer.locator('[data-testid="outputs"] .output').first().click();
  await page.locator('[data-testid="output-full"] img').waitFor();
  await page.waitForFunction(`document.querySelector('[data-testid="output-full"] img').naturalWidth > 0`);
  await page.keyboard.press('Escape');
  await page.locator('[data-testid="output-full"]').waitFor({ state: 'detached' });
  assert.equal(await drawer.count(), 1);

  // The link alone opens the drawer (a reload, or a link sent to someone).
  await page.reload();
  await page.locator(`[data-testid="job-drawer"][data-job-id="${id}"] [data-testid="resolved-parameters"]`).waitFor();
  await page.keyboard.press('Escape');
  await drawer.waitFor({ state: 'detached' });
  assert.equal(new URL(page.url()).hash, '#/queue?view=done', 'closing the drawer keeps the view');
  assert.equal(await page.locator('[data-preset="done"]').getAttribute('aria-pressed'), 'true');
  assert.deepEqual(studio.pageErrors, []);
});

test('a running job shows node k of N beside step n/m, in its row and in its drawer; Enter opens the drawer', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, {
    instances: [{ duration: { fixedMs: 200, perClassMs: { KSampler: 8_000 } } }],
  });
  const { page, farm } = studio;
  await farm.importJobs([{ id: 'sh010', parameters: { steps: 40 } }]);
  const nodes = row(page, 'sh010').locator('[data-testid="nodes"]');
  await page.waitForFunction(
    `/^\\d+\\/\\d+$/.test(document.querySelector('.row[data-shot="sh010"] [data-testid="steps"]')?.textContent ?? '')`,
  );
  assert.match((await nodes.textContent()) ?? '', /^node \d\/7$/);
  await row(page, 'sh010').click({ modifiers: ['Control'] });
  await page.keyboard.press('Enter');
  const live = page.locator('[data-testid="job-drawer"] [data-testid="drawer-live"]');
  await live.waitFor();
  await page.waitForFunction(
    `/^\\d of 7/.test(document.querySelector('[data-testid="drawer-node"]')?.textContent ?? '')`,
  );
  assert.match((await live.locator('[data-testid="drawer-steps"]').textContent()) ?? '', /^\d+\/40$/);
  assert.doesNotMatch((await live.locator('[data-testid="drawer-eta"]').textContent()) ?? '', /~0s/);
  await studio.screenshot('drawer-running');
  assert.deepEqual(studio.pageErrors, []);
});

test("the drawer's history shows a bump and a move to top with who made them, between the job's state changes", {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [], start: false });
  const { page, farm } = studio;
  const [id] = await farm.importJobs(
    [{ id: 'sq010_sh010', parameters: { prompt: 'Mira looks up' } }],
    'Moonfall',
    'ep101',
  );
  await farm.engine.call('jobs.bump', { ids: [id!], priority: 'rush' });
  await farm.engine.call('jobs.moveToTop', { ids: [id!] });
  await farm.engine.call('jobs.hold', { ids: [id!] });
  await page.goto(`${studio.server.url}/#/queue/job/${id}`);
  await page.waitForFunction(
    `document.querySelectorAll('[data-testid="job-drawer"] [data-testid="history"] li').length === 4`,
  );
  // Each line starts with its time in a span of its own; what follows is what the test reads.
  const lines =
    (await page.evaluate(`[...document.querySelectorAll('[data-testid="job-drawer"] [data-testid="history"] li')]
    .map((li) => li.textContent.slice(li.children[0].textContent.length).replace(/\\s+/g, ' ').trim())`)) as string[];
  assert.match(lines[0] ?? '', /^Held held by an operator \(local\)$/i);
  assert.match(lines[1] ?? '', /^moved to the top of rush \(local\)$/);
  assert.match(lines[2] ?? '', /^priority normal → rush \(local\)$/);
  assert.match(lines[3] ?? '', /^Queued/i);
  await studio.screenshot('drawer-history-order');
  assert.deepEqual(studio.pageErrors, []);
});
