/**
 * A long import shows how far it is: a 100,000-row shot list with a long file name, dropped on the
 * Studio in Chromium. The check's answer is held back at the network (the engine has checked every
 * row and said so by then), so the dialog waits past its 2 s threshold whatever the machine's
 * speed: it shows a bar with the check's counts, then — the commit's answer held the same way —
 * that it writes every row in one transaction. Screenshots at 1280×720 and 1440×900.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { dropFile, studioSuite } from './support/studio.js';
import { oneStageList } from '../helpers/shot-lists.js';

const suite = studioSuite();
const ROWS = 100_000;
const FILE = 'moonfall_season02_episode_204_all_shots_for_lighting_review_final_v17_2026-12-04.json';

function bigList(): string {
  return oneStageList(ROWS, { project: 'Moonfall', episode: 'ep204', badTemplateEvery: 25_000 });
}

/** Holds the answer of `/api/call/<method>` until the returned release is called: the call has run on the engine by then. */
async function holdAnswer(page: Page, method: string): Promise<() => void> {
  let release = (): void => undefined;
  const released = new Promise<void>((r) => {
    release = r;
  });
  await page.route(`**/api/call/${method}`, async (route) => {
    const response = await route.fetch({ timeout: 120_000 });
    await released;
    await route.fulfill({ response });
  });
  return () => release();
}

test('a 100,000-row import shows a progress bar with its counts while it checks, and while it commits', {
  timeout: 240_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{ duration: { fixedMs: 60_000 } }], start: false });
  const { page } = studio;
  const releasePreview = await holdAnswer(page, 'import.preview');
  await dropFile(page, FILE, bigList(), 'application/json');
  // Reading and checking 9.5 MB in the page takes seconds, tens of them on a loaded machine: the
  // same bound as every other step here, not the page's 20 s default.
  await page.locator('[data-testid="import-dialog"]').waitFor({ state: 'attached', timeout: 120_000 });

  // The bar appears once the check has run past 2 s; it ends at every row, with the counts.
  const bar = page.locator('[data-testid="import-progress"]');
  await bar.waitFor({ timeout: 120_000 });
  for (const [w, h] of [
    [1280, 720],
    [1440, 900],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await studio.screenshot(`import-progress-checking-${w}x${h}`);
  }
  await page.waitForFunction(
    `document.querySelector('[data-testid="import-progress"]')?.getAttribute('data-done') === '${ROWS}'`,
    undefined,
    { timeout: 120_000 },
  );
  assert.equal(await bar.getAttribute('data-phase'), 'checking');
  assert.equal(await bar.getAttribute('data-total'), String(ROWS));
  assert.equal(
    await page.locator('[data-testid="import-progress-counts"]').textContent(),
    `${(ROWS - 4).toLocaleString('en-US')} new · 0 already queued · 4 with errors`,
  );
  await page.setViewportSize({ width: 1280, height: 720 });
  await studio.screenshot('import-progress-checked-1280x720');
  // No sideways scroll in the dialog, whatever the file's name.
  assert.equal(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), true);
  releasePreview();

  await page.waitForFunction(
    `document.querySelector('[data-testid="import-confirm"]')?.textContent === 'Import ${(ROWS - 4).toLocaleString('en-US')} jobs'`,
    undefined,
    { timeout: 120_000 },
  );
  assert.equal(await bar.count(), 0, 'the bar goes once the preview is shown');
  await studio.screenshot('import-progress-preview-1280x720');

  const releaseCommit = await holdAnswer(page, 'import.commit');
  await page.locator('[data-testid="import-confirm"]').click({ timeout: 120_000 });
  await page.locator('[data-testid="import-progress"][data-phase="writing"]').waitFor({ timeout: 120_000 });
  assert.match(
    (await bar.textContent()) ?? '',
    new RegExp(`Importing ${(ROWS - 4).toLocaleString('en-US')} rows in one transaction`),
  );
  await studio.screenshot('import-progress-writing-1280x720');
  releaseCommit();
  await page.locator('[data-testid="import-dialog"]').waitFor({ state: 'detached', timeout: 120_000 });
  assert.deepEqual(studio.pageErrors, []);
});
