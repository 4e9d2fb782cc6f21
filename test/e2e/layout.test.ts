/**
 * The Studio fits from 1280×720 up: with jobs in every state the top bar does not overflow, no page
 * scrolls sideways, and every state's counter is one click away in the summary. Screenshots of the
 * views this half of the UI draws, at both sizes, land in test-results/screenshots/.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { JOB_STATES } from '../../shared/job-states.js';
import { studioSuite } from './support/studio.js';
import { seedEveryState } from './support/seed.js';

const suite = studioSuite();
const SIZES = [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
];

/** What sticks out: the page wider than the window, or a top-bar item past its right edge. */
async function overflow(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const out = [];
    const w = window.innerWidth;
    if (document.documentElement.scrollWidth > w) out.push('page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + w);
    const bar = document.querySelector('.topbar');
    if (bar.scrollWidth > bar.clientWidth) out.push('top bar overflows: ' + bar.scrollWidth + ' > ' + bar.clientWidth);
    for (const el of document.querySelectorAll('.topbar .brand, .topbar .tab, .topbar-right > *')) {
      const r = el.getBoundingClientRect();
      if (r.right > w + 0.5 || r.left < 0) out.push((el.getAttribute('data-testid') || el.className) + ' reaches ' + Math.round(r.right) + ' of ' + w);
    }
    const table = document.querySelector('[data-testid="queue-body"]');
    if (table && table.scrollWidth > table.clientWidth + 1) out.push('the queue table scrolls sideways: ' + table.scrollWidth + ' > ' + table.clientWidth);
    return out;
  })()`)) as string[];
}

test('from 1280×720 up nothing overflows, and every state counter is in the summary', {
  timeout: 120_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, {
    instances: [{ duration: { fixedMs: 60_000 } }],
    start: false,
    config: { retry: { maxAttempts: 4, baseMs: 3_600_000, capMs: 3_600_000 } },
  });
  const { page, farm } = studio;
  const ids = await seedEveryState(farm);
  for (const s of JOB_STATES) assert.ok(ids[s].length > 0, s);
  await page.waitForFunction(`document.querySelector('[data-summary-state="running"] b')?.textContent === '1'`);

  for (const size of SIZES) {
    const tag = `${size.width}x${size.height}`;
    await page.setViewportSize(size);
    await page.locator('[data-tab="queue"]').click();
    await page.locator('.row[data-state="running"]').waitFor();
    assert.deepEqual(await overflow(page), [], `queue at ${tag}`);
    await studio.screenshot(`layout-queue-${tag}`);

    // The summary opens every state's count, each inside the window; a click filters the queue by it.
    await page.locator('[data-testid="counts-summary"]').click();
    for (const s of [...JOB_STATES, 'blocked'] as const) {
      const count = page.locator(`[data-count-state="${s}"]`);
      assert.ok(await count.isVisible(), `${s} counter visible at ${tag}`);
      const box = await count.boundingBox();
      assert.ok(
        box && box.x >= 0 && box.x + box.width <= size.width && box.y + box.height <= size.height,
        `${s} counter inside the window at ${tag}`,
      );
      const expected = ids[s].length;
      assert.equal(await count.locator('b').textContent(), String(expected), `${s} count`);
    }
    await studio.screenshot(`layout-counts-${tag}`);
    await page.locator('[data-count-state="failed_final"]').click();
    await page.waitForFunction(
      `document.querySelectorAll('.row[data-job-id]').length === 1 && !!document.querySelector('.row[data-state="failed_final"]')`,
    );
    await page.locator('[data-preset="active"]').click();
    await page.locator('.row[data-state="running"]').waitFor();

    // The group tree beside the table still fits.
    if (!(await page.locator('[data-testid="group-tree"]').isVisible()))
      await page.locator('[data-testid="groups-toggle"]').click();
    await page.locator('[data-group="project"][data-group-value="Moonfall"] .tree-twist').click();
    await page.locator('[data-group="episode"][data-group-value="ep101"] .tree-twist').click();
    await page.locator('[data-group="sequence"][data-group-value="sq030"]').waitFor();
    assert.deepEqual(await overflow(page), [], `queue with groups at ${tag}`);
    await studio.screenshot(`layout-groups-${tag}`);

    // The drawer over a running job, then over a blocked one.
    await page.locator('.row[data-state="running"]').click();
    await page.locator('[data-testid="job-drawer"] [data-testid="drawer-live"]').waitFor();
    assert.deepEqual(await overflow(page), [], `drawer at ${tag}`);
    await studio.screenshot(`layout-drawer-running-${tag}`);
    await page.keyboard.press('Escape');
    await page.locator('[data-testid="job-drawer"]').waitFor({ state: 'detached' });

    for (const view of ['workstations', 'failures', 'timeline', 'ledger']) {
      await page.locator(`[data-tab="${view}"]`).click();
      await page.locator(`main[data-view="${view}"]`).waitFor();
      assert.deepEqual(await overflow(page), [], `${view} at ${tag}`);
      await studio.screenshot(`layout-${view}-${tag}`);
    }
    await page.locator('[data-tab="queue"]').click();
    await page.locator('[data-testid="groups-toggle"]').click();
  }
  assert.deepEqual(studio.pageErrors, []);
});
