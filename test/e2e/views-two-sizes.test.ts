/**
 * Every view this half of the Studio shows, at 1280×720 and 1440×900: nothing in the main area or a
 * dialog is wider than the window, and a screenshot of each (test-results/screenshots/) to look at.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { RESOURCES } from '../helpers/engine.js';
import { studioSuite, type Studio } from './support/studio.js';

const suite = studioSuite();
const SIZES = [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
];

/** Elements wider than their box (they would scroll sideways or be cut off). */
async function overflowing(page: Page, selector: string): Promise<string[]> {
  return page.evaluate(`[...document.querySelectorAll(${JSON.stringify(selector)})]
    .filter((el) => el.scrollWidth > el.clientWidth + 1)
    .map((el) => el.className + ' ' + el.scrollWidth + '>' + el.clientWidth)`) as Promise<string[]>;
}

async function shoot(
  studio: Studio,
  name: string,
  size: { width: number; height: number },
  selector = '.main, .view, .modal, .modal-body',
) {
  assert.deepEqual(await overflowing(studio.page, selector), [], `${name} at ${size.width}×${size.height}`);
  await studio.screenshot(`${name}-${size.width}x${size.height}`);
}

test('failures, ledger, workstations, settings, the import dialog and the template dialog fit at 1280×720 and 1440×900', {
  timeout: 120_000,
}, async (ctx) => {
  const studio = await suite.open(
    ctx,
    { instances: [{ script: ['ok', 'error'], duration: { fixedMs: 100 } }, { duration: { fixedMs: 100 } }] },
    'failures',
  );
  const { page, farm } = studio;
  const ids = await farm.importJobs(
    ['sh010', 'sh020', 'sh030', 'sh040', 'sh050', 'sh060'].map((id) => ({ id })),
    'Moonfall',
    'ep101',
  );
  await farm.waitForStates(ids, ['completed', 'failed_final'], 30_000);
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.goto(`${studio.server.url}/#/failures`);
    await page.locator('[data-testid="failure-group"] .failure-head').click();
    await page.locator('.failure-job .failure-job-line').first().click();
    await page.locator('[data-testid="attempts"] tbody tr').first().waitFor();
    await shoot(studio, 'failures', size);

    await page.locator('[data-tab="ledger"]').click();
    await page.waitForFunction(`document.querySelectorAll('.asset').length === 5`);
    await page.waitForFunction(
      `[...document.querySelectorAll('.thumb img')].every((i) => i.complete && i.naturalWidth > 0)`,
    );
    await shoot(studio, 'ledger', size);

    await page.locator('[data-tab="workstations"]').click();
    await page.locator('[data-instance="sim-1"]').waitFor();
    await shoot(studio, 'workstations', size);
    await page.locator('[data-instance="sim-1"] .card-actions .btn', { hasText: 'Edit' }).click();
    await page.locator('[data-testid="instance-test"]').click();
    await page.locator('[data-testid="connection-result"]').waitFor();
    await shoot(studio, 'workstation-form', size);
    await page.keyboard.press('Escape');

    await page.locator('[data-tab="settings"]').click();
    await page.locator('[data-testid="templates-panel"] [data-template="txt2img"]').waitFor();
    await shoot(studio, 'settings', size);

    await page.locator('[data-testid="import-file"]').setInputFiles(`${RESOURCES}samples/kitsu_shots.csv`);
    await page.locator('[data-mapping="project"]').fill('Moonfall');
    await page.locator('[data-mapping="stage"]').selectOption('keyframe');
    await page.locator('[data-mapping="template"]').selectOption('txt2img');
    await page.locator('[data-testid="mapping-state"]', { hasText: 'preview up to date' }).waitFor();
    await page.waitForFunction(`document.querySelectorAll('[data-row-status="new"]').length > 0`);
    await shoot(studio, 'import-dialog', size);
    await page.locator('[data-testid="register-template"]').click();
    await page.locator('[data-testid="template-file"]').setInputFiles(`${RESOURCES}templates/keyframe-img2img.json`);
    await page.locator('[data-testid="template-verdict"][data-status="ok"]').waitFor();
    await shoot(studio, 'template-dialog', size);
    await page.keyboard.press('Escape');
    await page.locator('[data-testid="template-dialog"]').waitFor({ state: 'detached' });
    assert.equal(
      await page.locator('[data-testid="import-dialog"]').count(),
      1,
      'Escape closed only the template dialog',
    );
    await page.keyboard.press('Escape');
  }
  assert.deepEqual(studio.pageErrors, []);
});

test('the first-run guide fits at 1280×720 and 1440×900', { timeout: 60_000 }, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [], templates: [], start: false });
  for (const size of SIZES) {
    await studio.page.setViewportSize(size);
    await studio.page.locator('[data-testid="first-run-guide"]').waitFor();
    await shoot(studio, 'first-run-guide', size, '.main, .guide, .guide-step');
  }
  assert.deepEqual(studio.pageErrors, []);
});
