import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { row, studioSuite } from './support/studio.js';

const suite = studioSuite();

test('a failing shot shows in Failures with its reason and attempt history; the timeline draws it red among green', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, {
    instances: [{ script: ['ok', 'error'], duration: { fixedMs: 300 } }, { duration: { fixedMs: 300 } }],
  });
  const { page, farm } = studio;
  const ids = await farm.importJobs(['sh010', 'sh020', 'sh030', 'sh040'].map((id) => ({ id })));
  const views = await farm.waitForStates(ids, ['completed', 'failed_final'], 30_000);
  const failed = views.filter((v) => v.state === 'failed_final');
  assert.equal(failed.length, 1, 'the scripted error fails exactly one job');

  await page.locator('[data-tab="failures"]').click();
  const group = page.locator('[data-testid="failure-group"]');
  await group.waitFor();
  assert.match(
    (await page.locator('[data-testid="failure-reason"]').textContent()) ?? '',
    /KSampler \(node 3\) failed: RuntimeError/,
  );
  await group.locator('.failure-head').click();
  await page.locator(`.failure-job[data-shot="${failed[0]?.shot}"] .failure-job-line`).click();
  const attempts = page.locator('[data-testid="attempts"] tbody tr');
  await attempts.first().waitFor();
  const text = (await attempts.first().textContent()) ?? '';
  assert.match(text, /KSampler/);
  assert.match(text, /RuntimeError/);
  assert.match(text, /sim-0/);
  await studio.screenshot('failures');

  await page.locator('[data-tab="timeline"]').click();
  await page.locator('.tbar[data-outcome="failed"]').waitFor();
  await page.locator('[data-range="fit"]').click();
  assert.equal(await page.locator('.tbar[data-outcome="completed"]').count(), 3);
  assert.equal(await page.locator('.lane').count(), 2);
  await studio.screenshot('timeline');

  // Retry from the Failures view puts the job back in the queue (and it completes on the healthy GPU).
  await page.locator('[data-tab="failures"]').click();
  await page.locator('[data-testid="failure-group"] .failure-head').click();
  await page.locator(`.failure-job[data-shot="${failed[0]?.shot}"] [data-action="retry"]`).click();
  await farm.waitForStates([failed[0]?.id as string], ['completed'], 30_000);
  await page.locator('.empty-title', { hasText: 'No failures' }).waitFor();
  assert.deepEqual(studio.pageErrors, []);
});

test('draining a workstation from its card (confirmed in words): it finishes its prompt and takes no new one', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(
    ctx,
    { instances: [{ duration: { fixedMs: 200 } }, { duration: { fixedMs: 200 } }] },
    'workstations',
  );
  const { page, farm } = studio;
  await page.locator('[data-instance="sim-0"][data-health="idle"]').waitFor();
  await page.locator('[data-instance="sim-0"] [data-action="drain"]').click();
  assert.match(
    (await page.locator('[data-testid="admin-effect"]').textContent()) ?? '',
    /sim-0 is not rendering anything now; it takes no new work\./,
  );
  await page.locator('[data-testid="confirm-ok"]').click();
  await page.locator('[data-instance="sim-0"][data-admin="draining"]').waitFor();
  const ids = await farm.importJobs(['sh010', 'sh020', 'sh030'].map((id) => ({ id })));
  await farm.waitForStates(ids, ['completed'], 30_000);
  const used = farm.engine.db.all(
    'SELECT DISTINCT i.name FROM attempts a JOIN instances i ON i.id = a.instance_id',
  ) as { name: string }[];
  assert.deepEqual(
    used.map((u) => u.name),
    ['sim-1'],
    'the drained workstation took no work',
  );
  assert.equal(
    (await page.locator('[data-instance="sim-0"] [data-testid="health"]').textContent())?.trim(),
    'Draining',
  );
  await studio.screenshot('workstations');
  await page.locator('[data-instance="sim-0"] [data-action="enable"]').click();
  await page.locator('[data-instance="sim-0"][data-admin="active"]').waitFor();
  assert.deepEqual(studio.pageErrors, []);
});

test('the ledger shows thumbnails; the run log downloads as a CSV whose rows match the attempts', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{ duration: { fixedMs: 200 } }] }, 'ledger');
  const { page, farm } = studio;
  const ids = await farm.importJobs(['sh010', 'sh020', 'sh030'].map((id) => ({ id })));
  await farm.waitForStates(ids, ['completed'], 30_000);
  // The ledger holds its page still once it shows an output: a page first read between two of the
  // three outputs shows the rest behind "N new outputs — show" (a loaded CI run caught one so).
  // Either way all three are on the page or behind that button; shown, all three are cards.
  await page.waitForFunction(
    `document.querySelectorAll('.asset').length + Number(document.querySelector('[data-testid="new-outputs"]')?.dataset.newer ?? 0) === 3`,
    undefined,
    { timeout: 60_000 },
  );
  const newer = page.locator('[data-testid="new-outputs"]');
  // It may be gone by the click (the page took them itself): the count below is what is judged.
  if (await newer.count()) await newer.click({ timeout: 2_000 }).catch(() => undefined);
  await page.waitForFunction(`document.querySelectorAll('.asset').length === 3`);
  await page.waitForFunction(
    `[...document.querySelectorAll('.thumb img')].every((i) => i.complete && i.naturalWidth > 0)`,
  );
  await page.locator('.asset[data-shot="sh020"] [data-action="approve"]').click();
  await page.locator('.asset[data-shot="sh020"].asset-approved').waitFor();

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('[data-testid="export-run"]').click(),
  ]);
  const rows = parse(readFileSync(await download.path()), { bom: true, columns: true }) as Record<string, string>[];
  assert.equal(rows.length, 3);
  assert.deepEqual(rows.map((r) => r.shot).sort(), ['sh010', 'sh020', 'sh030']);
  assert.ok(rows.every((r) => r.outcome === 'completed' && r.instance === 'sim-0'));
  await studio.screenshot('ledger');
  assert.deepEqual(studio.pageErrors, []);
});

test('a workstation that stops answering: the queue row says lost contact, the card shows its figures unknown since the last answer, the timeline hatches the stretch', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, {
    instances: [{ duration: { fixedMs: 4_000 } }],
    config: { probeIntervalMs: 100, probeTimeoutMs: 300, graceMs: 30_000 },
  });
  const { page, farm } = studio;
  const [id] = await farm.importJobs([{ id: 'sh010' }]);
  await farm.waitFor('the prompt running', async () => (await farm.job(id as string)).attempt?.phase === 'running');
  farm.sims[0]!.partition(true);
  const note = row(page, 'sh010').locator('[data-testid="contact"]');
  await note.waitFor();
  assert.match(
    (await note.textContent()) ?? '',
    /^lost contact with sim-0 \d+ s ago; requeued in \d+ s unless it answers$/,
  );
  await studio.screenshot('lost-contact-queue');

  await page.locator('[data-tab="workstations"]').click();
  const card = page.locator('[data-instance="sim-0"]');
  await card.locator('[data-testid="vram-unknown"]').waitFor();
  assert.match(
    (await card.locator('[data-testid="vram-unknown"]').textContent()) ?? '',
    /^VRAM unknown since \d\d:\d\d:\d\d$/,
  );
  assert.match((await card.locator('[data-testid="queue"]').textContent()) ?? '', /^unknown since \d\d:\d\d:\d\d$/);
  await studio.screenshot('lost-contact-card');

  await page.locator('[data-tab="timeline"]').click();
  await page.locator('[data-testid="contact-gap"]').waitFor();

  farm.sims[0]!.partition(false);
  await page.locator('[data-tab="workstations"]').click();
  await card.locator('[data-testid="vram"]').waitFor();
  await farm.waitForStates([id as string], ['completed'], 30_000);
  assert.deepEqual(studio.pageErrors, []);
});
