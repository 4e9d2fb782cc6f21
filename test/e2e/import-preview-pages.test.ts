/**
 * A 100,000-row preview crosses to the browser as its counts and one page, not as every row: the
 * dialog shows the counts, the rows with errors first, and fetches the next page when asked
 * (import.previewRows). Screenshots at 1280×720 and 1440×900.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropFile, studioSuite } from './support/studio.js';
import { oneStageList } from '../helpers/shot-lists.js';

const suite = studioSuite();
const ROWS = 100_000;

test('a 100,000-row preview arrives as its counts and a page; the dialog shows errors first and turns pages', {
  timeout: 240_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{ duration: { fixedMs: 60_000 } }], start: false });
  const { page } = studio;
  const previewBytes: number[] = [];
  page.on('response', (r) => {
    if (r.url().endsWith('/api/call/import.preview')) void r.body().then((b) => previewBytes.push(b.length));
  });
  await dropFile(
    page,
    'moonfall_ep204_all_shots.json',
    oneStageList(ROWS, { project: 'Moonfall', episode: 'ep204', badTemplateEvery: 25_000 }),
    'application/json',
  );
  const range = page.locator('[data-testid="preview-range"]');
  await range.waitFor({ timeout: 150_000 });
  assert.equal(await range.textContent(), `Rows 1–200 of ${ROWS.toLocaleString('en-US')} (errors first)`);
  assert.equal(
    await page.locator('[data-testid="import-confirm"]').textContent(),
    `Import ${(ROWS - 4).toLocaleString('en-US')} jobs`,
  );
  const statuses = await page.locator('[data-testid="preview-rows"] tbody tr').evaluateAll(
    // Cast: the test tsconfig has no DOM types.
    (trs) => trs.map((tr) => (tr as unknown as { dataset: { rowStatus: string } }).dataset.rowStatus),
  );
  assert.equal(statuses.length, 200);
  assert.deepEqual(statuses.slice(0, 5), ['error', 'error', 'error', 'error', 'new']);
  // The answer holds one page: well under 1 MB where every row was about 25 MB.
  assert.equal(previewBytes.length, 1);
  assert.ok((previewBytes[0] as number) < 1_000_000, `the preview answer was ${previewBytes[0]} bytes`);
  for (const [w, h] of [
    [1280, 720],
    [1440, 900],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await studio.screenshot(`import-preview-pages-${w}x${h}`);
    assert.equal(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), true);
  }

  await page.locator('[data-testid="preview-next"]').click();
  await page.waitForFunction(
    `document.querySelector('[data-testid="preview-range"]')?.textContent === 'Rows 201–400 of ${ROWS.toLocaleString('en-US')} (errors first)'`,
    undefined,
    { timeout: 30_000 },
  );
  // Errors came first, so the second page starts at the 197th row of the file.
  assert.equal(
    await page.locator('[data-testid="preview-rows"] tbody tr').first().getAttribute('data-shot'),
    'sh000196',
  );
  await page.setViewportSize({ width: 1280, height: 720 });
  await studio.screenshot('import-preview-pages-2-1280x720');
  await page.locator('[data-testid="preview-prev"]').click();
  await page.waitForFunction(
    `document.querySelector('[data-testid="preview-range"]')?.textContent?.startsWith('Rows 1–200')`,
    undefined,
    { timeout: 30_000 },
  );
  assert.deepEqual(studio.pageErrors, []);
});
