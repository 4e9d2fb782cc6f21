import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();

test('a run-log export in the browser arrives as a download with one row per attempt, and nothing is written on the server', {
  timeout: 90_000,
}, async (ctx) => {
  // The first prompt runs out of memory: its job has two attempts, so attempts outnumber jobs.
  const studio = await suite.open(ctx, { instances: [{ script: ['oom'], duration: { fixedMs: 150 } }] }, 'ledger');
  const { page, farm } = studio;
  const ids = await farm.importJobs(
    ['sh010', 'sh020', 'sh030'].map((id) => ({ id })),
    'Moonfall',
    'ep101',
  );
  await farm.waitForStates(ids, ['completed'], 30_000);
  const attempts = farm.engine.db.one('SELECT COUNT(*) AS n FROM attempts') as { n: number };
  assert.equal(attempts.n, 4);

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('[data-testid="export-run"]').click(),
  ]);
  assert.match(download.suggestedFilename(), /^shotfarm-runlog-\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d\.csv$/);
  const file = await download.path();
  const rows = parse(readFileSync(file), { bom: true, columns: true }) as Record<string, string>[];
  assert.equal(rows.length, attempts.n, 'one row per attempt');
  assert.deepEqual(Object.keys(rows[0]!).slice(0, 7), [
    'project',
    'episode',
    'sequence',
    'shot',
    'stage',
    'take',
    'attempt',
  ]);
  assert.deepEqual(rows.map((r) => `${r.shot}#${r.attempt}:${r.outcome}`).sort(), [
    'sh010#1:retry',
    'sh010#2:completed',
    'sh020#1:completed',
    'sh030#1:completed',
  ]);
  assert.ok(
    rows.every(
      (r) =>
        r.project === 'Moonfall' && r.episode === 'ep101' && r.template === 'txt2img' && r.template_version === '1',
    ),
  );

  // The filters travel with the download.
  await page.locator('[data-testid="export-outcome"]').selectOption('retry');
  const [retries] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('[data-testid="export-run"]').click(),
  ]);
  assert.equal((parse(readFileSync(await retries.path()), { bom: true, columns: true }) as unknown[]).length, 1);
  await studio.screenshot('ledger-export');
  assert.equal(existsSync(join(farm.dir, 'exports')), false, 'nothing written on the server');
  assert.deepEqual(studio.pageErrors, []);
});

test('an approval click while outputs stream in approves the card that was clicked; new outputs wait behind "show"', {
  timeout: 120_000,
}, async (ctx) => {
  const studio = await suite.open(
    ctx,
    { instances: [{ duration: { fixedMs: 400 } }, { duration: { fixedMs: 400 } }] },
    'ledger',
  );
  const { page, farm } = studio;
  const ids = await farm.importJobs(
    Array.from({ length: 14 }, (_, i) => ({ id: `sh${String(i + 1).padStart(2, '0')}0` })),
  );
  // The page holds from the first outputs it shows (one or two, as they came): aim at its first card,
  // which every newer output would push down if the grid did not hold still.
  await page.waitForFunction(`document.querySelectorAll('.asset').length >= 1`);
  const target = page.locator('.asset').first();
  const targetId = (await target.getAttribute('data-asset')) ?? '';
  const before = await target.locator('[data-action="approve"]').boundingBox();
  assert.ok(before);
  // More outputs arrive; the grid holds still and says so.
  await page.locator('[data-testid="new-outputs"]').waitFor({ timeout: 30_000 });
  const after = await target.locator('[data-action="approve"]').boundingBox();
  assert.deepEqual(after, before, 'the card did not move under the pointer');
  assert.equal(await page.locator('.asset').first().getAttribute('data-asset'), targetId);
  // A click at the place the operator saw the card lands on that card.
  await page.mouse.click(before.x + before.width / 2, before.y + before.height / 2);
  await page.locator(`.asset[data-asset="${targetId}"].asset-approved`).waitFor();
  await farm.waitFor(
    'the approval stored',
    () =>
      (farm.engine.db.one('SELECT approved FROM assets WHERE id = ?', targetId) as { approved: number }).approved === 1,
  );
  const approved = farm.engine.db.all('SELECT id FROM assets WHERE approved = 1') as { id: string }[];
  assert.deepEqual(
    approved.map((a) => a.id),
    [targetId],
    'only the clicked card',
  );
  await studio.screenshot('ledger-new-outputs');

  await farm.waitForStates(ids, ['completed'], 60_000);
  await page.locator('[data-testid="new-outputs"]').click();
  // The page may learn of the last outputs after the click (events and its refetch lag the store
  // under load): they then wait behind "show" again, which is the behaviour; show them too.
  await page.waitForFunction(
    `(() => {
    const more = document.querySelector('[data-testid="new-outputs"]');
    if (more) more.click();
    return document.querySelectorAll('.asset').length === 14;
  })()`,
    undefined,
    { polling: 250, timeout: 30_000 },
  );
  assert.equal(await page.locator('[data-testid="new-outputs"]').count(), 0);

  // Keyboard: the focused card approves with Space, opens full size with Enter.
  await page.locator('.asset').first().focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal(
    await page.evaluate('document.activeElement?.getAttribute("data-asset")'),
    await page.locator('.asset').nth(2).getAttribute('data-asset'),
  );
  const third = (await page.locator('.asset').nth(2).getAttribute('data-asset')) ?? '';
  await page.keyboard.press(' ');
  await page.locator(`.asset[data-asset="${third}"].asset-approved`).waitFor();
  await page.keyboard.press('Enter');
  const box = page.locator('[data-testid="lightbox"]');
  await box.waitFor();
  assert.equal(await box.getAttribute('data-asset'), third);
  await page.waitForFunction(
    `(() => { const i = document.querySelector('[data-testid="lightbox"] img'); return !!i && i.complete && i.naturalWidth > 0; })()`,
  );
  await studio.screenshot('ledger-lightbox');
  await page.keyboard.press('Escape');
  await box.waitFor({ state: 'detached' });

  // Bulk: selecting more than a few and approving asks first; nothing changes until confirmed.
  await page.keyboard.press('Control+a');
  await page.locator('[data-action="approve-selected"]').click();
  await page.locator('[data-testid="confirm"]').waitFor();
  assert.match((await page.locator('.modal-head h2').textContent()) ?? '', /^Approve 12 outputs\?$/);
  assert.equal((farm.engine.db.one('SELECT COUNT(*) AS n FROM assets WHERE approved = 1') as { n: number }).n, 2);
  await page.locator('[data-testid="confirm-ok"]').click();
  await page.waitForFunction(`document.querySelectorAll('.asset.asset-approved').length === 14`);
  await farm.waitFor(
    'all approved',
    () => (farm.engine.db.one('SELECT COUNT(*) AS n FROM assets WHERE approved = 1') as { n: number }).n === 14,
  );
  assert.deepEqual(studio.pageErrors, []);
});
