import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropFile, row, shotList, studioSuite } from './support/studio.js';

const suite = studioSuite();

const countRows = (state: string) => `document.querySelectorAll('.row[data-state="${state}"]').length`;

test('a dropped shot list is previewed row by row, confirmed, and its jobs run to completion with live progress', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, {
    instances: [{ duration: { fixedMs: 2_500 } }, { duration: { fixedMs: 2_500 } }],
  });
  const { page } = studio;
  await dropFile(
    page,
    'moonfall_ep101.json',
    shotList(['sh010', 'sh020', 'sh030', 'sh040', 'sh050'].map((id) => ({ id, steps: 12 }))),
    'application/json',
  );
  const dialog = page.locator('[data-testid="import-dialog"]');
  await dialog.waitFor();
  await page.waitForFunction(`document.querySelectorAll('[data-row-status="new"]').length === 5`);
  assert.equal(await page.locator('[data-testid="import-confirm"]').textContent(), 'Import 5 jobs');
  await studio.screenshot('import-preview');
  await page.locator('[data-testid="import-confirm"]').click();
  await dialog.waitFor({ state: 'detached' });

  // Live progress: a running row shows its node and step n/m, updated by pushed events.
  const steps = page.locator('.row[data-state="running"] [data-testid="steps"]').first();
  await steps.waitFor();
  assert.match((await steps.textContent()) ?? '', /^\d+\/\d+$/);
  await studio.screenshot('queue-running');

  // The default view is Active: finished rows leave it; Done is one click away.
  const ids = (await studio.farm.engine.call('jobs.list', {})).rows.map((j) => j.id);
  await studio.farm.waitForStates(ids, ['completed'], 60_000);
  await page.locator('[data-preset="done"]').click();
  await page.waitForFunction(`${countRows('completed')} === 5`, undefined, { timeout: 60_000 });
  const jobs = await studio.farm.engine.call('jobs.list', {});
  assert.deepEqual(
    jobs.rows.map((j) => j.state),
    Array(5).fill('completed'),
  );
  await page.waitForFunction(`document.querySelector('[data-count-state="completed"] b')?.textContent === '5'`);
  await studio.screenshot('queue');
  assert.deepEqual(studio.pageErrors, []);
});

test('a job moved to the top with T starts next on the busy workstation', { timeout: 90_000 }, async (ctx) => {
  // One prompt at a time (prefetch off): with prefetch the next job already waits on the server,
  // and a moved job takes its place (scheduler-prefetch.test.ts); here the row order is the subject.
  const studio = await suite.open(ctx, { instances: [{ duration: { fixedMs: 2_000 } }], config: { prefetch: false } });
  const { page, farm } = studio;
  const ids = await farm.importJobs(['sh010', 'sh020', 'sh030', 'sh040', 'sh050'].map((id) => ({ id })));
  await page.locator('.row[data-state="running"]').waitFor();
  await page.waitForFunction(`${countRows('queued')} === 4`);
  // The last job in dispatch order (the table's default sort) is moved to the top.
  const last = await page.locator('.row[data-state="queued"]').last().getAttribute('data-shot');
  assert.ok(last);
  const lastId = ids[['sh010', 'sh020', 'sh030', 'sh040', 'sh050'].indexOf(last)];
  await row(page, last).click();
  await page.keyboard.press('t');
  // Its row moves up: it becomes the first queued row in dispatch order.
  await page.waitForFunction(
    `document.querySelector('.row[data-state="queued"]')?.getAttribute('data-shot') === '${last}'`,
  );
  await page.waitForFunction(
    `document.querySelector('.row[data-shot="${last}"]')?.getAttribute('data-state') !== 'queued'`,
    undefined,
    { timeout: 30_000 },
  );
  const order = farm.engine.db.all('SELECT job_id FROM attempts ORDER BY dispatched_at, rowid') as { job_id: string }[];
  assert.equal(order[1]?.job_id, lastId, 'the moved job was the second one dispatched');
  assert.deepEqual(studio.pageErrors, []);
});

test('click, shift-click and ctrl-click select rows; H holds only those, Ctrl+A then Release frees them', {
  timeout: 60_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{}], start: false });
  const { page, farm } = studio;
  const shots = ['sh010', 'sh020', 'sh030', 'sh040', 'sh050', 'sh060'];
  await farm.importJobs(shots.map((id) => ({ id })));
  await page.waitForFunction(`${countRows('queued')} === 6`);
  await row(page, 'sh010').click();
  await row(page, 'sh030').click({ modifiers: ['Shift'] });
  await row(page, 'sh050').click({ modifiers: ['Control'] });
  await page.waitForFunction(`document.querySelectorAll('.row[aria-selected="true"]').length === 4`);
  assert.equal(
    await page.locator('[data-action="release"]').isDisabled(),
    true,
    'release does not apply to queued jobs',
  );
  await page.keyboard.press('h');
  await page.waitForFunction(`${countRows('held')} === 4`);
  const held = (await farm.engine.call('jobs.list', { filter: { states: ['held'] } })).rows.map((j) => j.shot).sort();
  assert.deepEqual(held, ['sh010', 'sh020', 'sh030', 'sh050']);
  await studio.screenshot('queue-selection');

  await page.keyboard.press('Control+a');
  await page.waitForFunction(`document.querySelectorAll('.row[aria-selected="true"]').length === 6`);
  await page.locator('[data-action="release"]').click();
  await page.waitForFunction(`${countRows('queued')} === 6`);

  // "/" focuses the search; the filter runs on the server.
  await page.keyboard.press('/');
  await page.keyboard.type('sh04');
  await page.waitForFunction(
    `document.querySelectorAll('.row[data-shot]').length === 1 && !!document.querySelector('.row[data-shot="sh040"]')`,
  );

  // A search that matches nothing says what it hides (not "nothing is waiting"), and clears in one click.
  await page.keyboard.type('9');
  await page.locator('[data-testid="empty-detail"]').waitFor();
  assert.equal(
    await page.locator('[data-testid="empty-detail"]').textContent(),
    '6 jobs in Active; the search or filters hide them all.',
  );
  await studio.screenshot('queue-search-hides-all');
  await page.locator('[data-testid="clear-filters"]').click();
  await page.waitForFunction(`document.querySelectorAll('.row[data-shot]').length === 6`);
  assert.equal(
    await page.locator('[data-testid="search"]').inputValue(),
    '',
    'the search box is cleared with the filter',
  );
  assert.deepEqual(studio.pageErrors, []);
});
