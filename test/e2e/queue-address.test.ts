/**
 * The queue's filter in the address, in Chromium against a real serve: a filtered view survives a
 * reload, its copied link opens the same rows in another browser, back walks through the filters,
 * a drawer keeps the filter beside its job, a malformed link is tidied (never an error), and a
 * link opened signed out lands on the filtered view after sign-in.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startServer } from '../../electron/server/server.js';
import { startFarm, type Farm } from '../helpers/farm.js';
import { addPerson } from '../helpers/people.js';
import { SCREENSHOTS, studioSuite } from './support/studio.js';

const suite = studioSuite();

/** The shots in the table, in the table's order. */
async function shotsShown(page: Page): Promise<string> {
  return String(
    await page.evaluate(
      `[...document.querySelectorAll('.row[data-shot]')].map((r) => r.getAttribute('data-shot')).join(',')`,
    ),
  );
}

async function waitShots(page: Page, expected: string): Promise<void> {
  const want = JSON.stringify(expected);
  await page
    .waitForFunction(
      `[...document.querySelectorAll('.row[data-shot]')].map((r) => r.getAttribute('data-shot')).join(',') === ${want}`,
    )
    .catch(async () => {
      assert.fail(`rows ${await shotsShown(page)}, expected ${expected}`);
    });
}

const hashOf = (page: Page) => new URL(page.url()).hash;

async function seed(farm: Farm): Promise<void> {
  await farm.importJobs(
    ['sh010', 'sh020', 'sh021', 'sh030'].map((id) => ({ id })),
    'Moonfall',
    'ep101',
  );
  await farm.importJobs(
    ['sh020', 'sh040'].map((id) => ({ id })),
    'Sunrise',
    'ep201',
  );
}

async function newPage(
  ctx: TestContext,
  url: string,
  size = { width: 1280, height: 720 },
): Promise<{ page: Page; errors: string[] }> {
  const context = await suite.browser.newContext({ viewport: size, deviceScaleFactor: 1, bypassCSP: true });
  ctx.after(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && !/Failed to load resource/.test(m.text()) && errors.push(m.text()));
  await page.goto(url);
  return { page, errors };
}

test('a filtered, sorted queue is in the address: it survives a reload, its copied link shows the same rows elsewhere, back restores the filter before', {
  timeout: 120_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{}], start: false });
  const { page, farm } = studio;
  await page.setViewportSize({ width: 1280, height: 720 });
  await seed(farm);
  await waitShots(page, 'sh010,sh020,sh021,sh030,sh020,sh040');

  // A search typed letter by letter: one history entry, the address replaced as it goes.
  await page.locator('[data-testid="search"]').pressSequentially('sh02', { delay: 60 });
  await page.waitForFunction(`location.hash === '#/queue?q=sh02'`);
  await waitShots(page, 'sh020,sh021,sh020');
  // A sort, then the Moonfall project picked: each a new entry.
  await page.locator('.order select').selectOption('shot');
  await page.waitForFunction(`location.hash === '#/queue?q=sh02&sort=shot'`);
  await page.locator('[data-preset="all"]').click();
  await page.waitForFunction(`location.hash === '#/queue?view=all&q=sh02&sort=shot'`);
  const rowsBefore = await shotsShown(page);
  assert.equal(rowsBefore.split(',').sort().join(), 'sh020,sh020,sh021');

  // Reload: the same filter, inputs and rows.
  await page.reload();
  await page.locator('[data-connection="online"]').waitFor();
  await waitShots(page, rowsBefore);
  assert.equal(await page.locator('[data-testid="search"]').inputValue(), 'sh02');
  assert.equal(await page.locator('.order select').inputValue(), 'shot');
  assert.equal(await page.locator('[data-preset="all"]').getAttribute('aria-pressed'), 'true');

  await studio.screenshot('queue-address-1280');

  // The drawer keeps the filter beside its job; closing it keeps the filter.
  await page.locator('.row[data-shot="sh021"]').click();
  await page.locator('[data-testid="job-drawer"]').waitFor();
  assert.match(hashOf(page), /^#\/queue\/job\/[0-9a-f-]{36}\?view=all&q=sh02&sort=shot$/);
  await studio.screenshot('queue-address-drawer-1280');
  await page.locator('[data-testid="drawer-close"]').click();
  await page.waitForFunction(`location.hash === '#/queue?view=all&q=sh02&sort=shot'`);

  // Copy link: the clipboard holds the address; opened in another browser, the same view.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: studio.server.url });
  await page.locator('[data-testid="copy-link"]').click();
  await page.waitForFunction(`document.querySelector('.toast')?.textContent?.includes('Link to this view copied')`);
  const copied = String(await page.evaluate('navigator.clipboard.readText()'));
  assert.equal(copied, page.url());
  await page.setViewportSize({ width: 1440, height: 900 });
  await studio.screenshot('queue-address-1440');
  const other = await newPage(ctx, copied, { width: 1440, height: 900 });
  await other.page.locator('[data-connection="online"]').waitFor();
  await waitShots(other.page, rowsBefore);
  assert.equal(await other.page.locator('[data-testid="search"]').inputValue(), 'sh02');
  assert.equal(await other.page.locator('.order select').inputValue(), 'shot');

  // Back walks the filters: All → Active; the sort → none; the search → the start.
  await page.goBack(); // the drawer's close
  await page.goBack(); // the drawer's open
  await page.waitForFunction(`location.hash === '#/queue?view=all&q=sh02&sort=shot'`);
  await page.goBack();
  await page.waitForFunction(`location.hash === '#/queue?q=sh02&sort=shot'`);
  assert.equal(await page.locator('[data-preset="active"]').getAttribute('aria-pressed'), 'true');
  await page.goBack();
  await page.waitForFunction(`location.hash === '#/queue?q=sh02'`);
  await waitShots(page, 'sh020,sh021,sh020');
  assert.equal(await page.locator('.order select').inputValue(), 'queue');
  await page.goBack();
  await waitShots(page, 'sh010,sh020,sh021,sh030,sh020,sh040');
  assert.equal(await page.locator('[data-testid="search"]').inputValue(), '');

  // Another view and back through its tab: the queue's filter is kept.
  await page.locator('[data-preset="done"]').click();
  await page.locator('[data-tab="timeline"]').click();
  await page.waitForFunction(`location.hash === '#/timeline'`);
  await page.locator('[data-tab="queue"]').click();
  await page.waitForFunction(`location.hash === '#/queue?view=done'`);
  assert.deepEqual(studio.pageErrors, []);
  assert.deepEqual(other.errors, []);
});

test('a malformed link shows what it can: unknown or refused parameters are dropped from the address, the rest applies, nothing breaks', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{}], start: false });
  await seed(studio.farm);
  const { page, errors } = await newPage(
    ctx,
    `${studio.server.url}/#/queue?states=queued,exploded&project=Moonfall&priority=urgent&colour=red&sort=%E0%A4%A`,
  );
  await page.locator('[data-connection="online"]').waitFor();
  await waitShots(page, 'sh010,sh020,sh021,sh030');
  await page.waitForFunction(`location.hash === '#/queue?project=Moonfall'`);
  assert.equal(await page.locator('[data-preset="active"]').getAttribute('aria-pressed'), 'true');
  // A hand-edited address while the page is open is read too.
  await page.evaluate(`location.hash = '#/queue?project=Sunrise&blocked=perhaps'`);
  await waitShots(page, 'sh020,sh040');
  await page.waitForFunction(`location.hash === '#/queue?project=Sunrise'`);
  // Where the browser offers no clipboard (plain http off this machine), the link is shown selected.
  await page.evaluate(`Object.defineProperty(navigator, 'clipboard', { value: undefined })`);
  await page.locator('[data-testid="copy-link"]').click();
  const shown = page.locator('[data-testid="copy-link-text"]');
  await shown.waitFor();
  assert.equal(await shown.inputValue(), page.url());
  assert.equal(
    await page.evaluate(
      `(() => { const i = document.querySelector('[data-testid="copy-link-text"]'); return i.selectionStart === 0 && i.selectionEnd === i.value.length && document.activeElement === i; })()`,
    ),
    true,
    'the link is selected, ready for Ctrl+C',
  );
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, 'queue-address-copy-fallback-1280.png') });
  assert.equal(
    await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'),
    true,
    'no sideways scroll',
  );
  assert.deepEqual(errors, []);
});

test('a filtered link opened signed out shows the sign-in page, then the filtered view after sign-in', {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await startFarm({ instances: [{}], start: false });
  ctx.after(() => farm.close());
  const server = await startServer({ engine: farm.engine, staticDir: suite.built.dir });
  ctx.after(() => server.close());
  const token = await addPerson(farm.engine, 'otto', 'operator');
  await seed(farm);
  const { page, errors } = await newPage(ctx, `${server.url}/#/queue?project=Moonfall&q=sh02&sort=shot&order=desc`);
  await page.locator('[data-testid="signin-page"]').waitFor();
  assert.equal(
    await page.locator('[data-testid="signin-then"]').textContent(),
    'Then opens the queue view you were sent.',
  );
  await page.screenshot({ path: join(SCREENSHOTS, 'queue-address-signin-1280.png') });
  await page.locator('[data-testid="signin-token"]').fill(token);
  await page.locator('[data-testid="signin-submit"]').click();
  await waitShots(page, 'sh021,sh020');
  assert.equal(hashOf(page), '#/queue?project=Moonfall&q=sh02&sort=shot&order=desc');
  assert.equal(await page.locator('[data-testid="search"]').inputValue(), 'sh02');
  // "Mine" (a field added to the filter after the address was built) rides in the address too, naming the person.
  await page.locator('[data-testid="filter-mine"]').click();
  await page.waitForFunction(
    `location.hash === '#/queue?project=Moonfall&importedBy=otto&q=sh02&sort=shot&order=desc'`,
  );
  await page.reload();
  await page.locator('[data-testid="filter-mine"][aria-pressed="true"]').waitFor();
  assert.deepEqual(errors, []);
});
