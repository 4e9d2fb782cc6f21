/**
 * Right after an import with no scheduler running, the queue goes from "No jobs yet" to the new rows
 * without saying the view is empty in between: while the first page of the new jobs is on its way
 * the table (and the group tree) say they are loading. The page's jobs.list answers are held back
 * in the browser (the real server answers them; page.route only delays their delivery) so the farm's
 * counts reach the page first, as they do on a slow link or a large import.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();
const EMPTY_WORDS = /none in this view|no jobs in this view|Nothing is waiting|No jobs match|No jobs yet/;

test('after an import the queue shows loading, never an empty state, until its first rows arrive', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{ duration: { fixedMs: 300 } }], start: false });
  const { page, farm } = studio;
  await page.locator('[data-testid="queue-body"] .empty-title', { hasText: 'No jobs yet' }).waitFor();
  if (!(await page.locator('[data-testid="group-tree"]').isVisible()))
    await page.locator('[data-testid="groups-toggle"]').click();

  // Every queue page answer arrives 1.5 s late from here on.
  await page.route('**/api/call/jobs.list', async (route) => {
    await new Promise((r) => setTimeout(r, 1_500));
    await route.continue().catch(() => undefined);
  });
  // Records every empty-state text the queue or the tree shows once the page knows of the new jobs
  // (the counts say 3) until its first row. Before that, "No jobs yet" is still the truth: a
  // mutation of anything else between here and the import must not record it.
  await page.evaluate(`(() => {
    window.__emptySeen = [];
    const re = ${EMPTY_WORDS.toString()};
    const look = () => {
      if (document.querySelector('.row[data-job-id]')) return;
      if (!/3/.test(document.querySelector('[data-testid="counts-summary"]')?.textContent ?? '')) return;
      for (const el of document.querySelectorAll('[data-testid="queue-body"] .empty, [data-testid="group-tree"] .tree-note')) {
        const t = el.textContent || '';
        if (re.test(t) && !window.__emptySeen.includes(t)) window.__emptySeen.push(t);
      }
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true });
  })()`);

  await farm.importJobs(
    ['sq010_sh010', 'sq010_sh020', 'sq020_sh030'].map((id) => ({ id })),
    'Moonfall',
    'ep101',
  );
  // The farm's counts reach the page before the rows: it knows there are jobs.
  await page.waitForFunction(`/3/.test(document.querySelector('[data-testid="counts-summary"]')?.textContent ?? '')`);
  await page.locator('[data-testid="queue-loading"]').waitFor();
  await page.locator('.row[data-shot="sq010_sh010"]').waitFor({ timeout: 15_000 });
  const seen = (await page.evaluate('window.__emptySeen')) as string[];
  assert.deepEqual(seen, [], 'no empty state between the import and the first rows');
  assert.deepEqual(studio.pageErrors, []);
});
