/**
 * The queue's group tree at studio scale (a long project name, 120 sequences with long names, a
 * sequence of 123,458 jobs): it lists project › episode › sequence — no shot leaves — with each
 * count in words on hover, and at 1280×720 it lies over the table instead of taking the width the
 * table's columns need (no column below its minimum, no sideways scroll). Screenshots at both sizes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { queueAt, queueWithPanel, STUDIO_SIZES, studioSuite } from './support/studio.js';
import { copies } from './support/scale.js';

const suite = studioSuite();
const PROJECT = 'Moonfall_The_Long_Night_of_the_Lantern_Festival_feature';
const EPISODE = 'ep101_extended_directors_cut';
const SEQUENCES = Array.from(
  { length: 120 },
  (_, i) => `sq${String(i + 1).padStart(3, '0')}-lantern-festival-crowd-ext`,
);
/** The queue table's columns at their minimums, with the gaps and padding between them (styles.css `.row`). */
const TABLE_MIN_PX = 994;

/** The table's width, whether its header row fits it (no column squeezed below its minimum) and whether it scrolls sideways. */
async function tableFit(
  page: Page,
): Promise<{ width: number; headFits: boolean; bodyScrolls: boolean; left: number; mainLeft: number }> {
  return (await page.evaluate(`(() => {
    const table = document.querySelector('.queue-main > .table');
    const head = table.querySelector('.row-head');
    const body = table.querySelector('[data-testid="queue-body"]');
    return {
      width: table.getBoundingClientRect().width,
      headFits: head.scrollWidth <= head.clientWidth + 1,
      bodyScrolls: body.scrollWidth > body.clientWidth + 1,
      left: table.getBoundingClientRect().left,
      mainLeft: document.querySelector('.queue-main').getBoundingClientRect().left,
    };
  })()`)) as { width: number; headFits: boolean; bodyScrolls: boolean; left: number; mainLeft: number };
}

test('the group tree lists project › episode › sequence, not shots, with counts in words; at 1280×720 the table keeps its full width', {
  timeout: 120_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{ duration: { fixedMs: 60_000 } }], start: false });
  const { page, farm } = studio;
  const ids = await farm.importJobs(
    SEQUENCES.flatMap((sq) => [{ id: `${sq}_sh010` }, { id: `${sq}_sh020` }]),
    PROJECT,
    EPISODE,
  );
  copies(farm.engine.db, ids[0] as string, 123_456, 'queued', 0);

  for (const size of STUDIO_SIZES) {
    const tag = `${size.width}x${size.height}`;
    await queueWithPanel(page, size, 'group-tree', 'groups-toggle');
    await page.locator(`[data-group="project"][data-group-value="${PROJECT}"] .tree-twist`).click();
    await page.locator(`[data-group="episode"][data-group-value="${EPISODE}"] .tree-twist`).click();
    await page.locator('[data-group="sequence"]').nth(119).waitFor();

    assert.equal(await page.locator('[data-group="sequence"]').count(), 120, `every sequence at ${tag}`);
    assert.equal(await page.locator('[data-group="shot"]').count(), 0, `no shot leaves at ${tag}`);
    assert.equal(
      await page.locator('[data-group="sequence"] button.tree-twist').count(),
      0,
      'a sequence is a leaf: nothing to expand',
    );
    const big = page.locator(`[data-group="sequence"][data-group-value="${SEQUENCES[0]}"]`);
    assert.equal(await big.locator('[data-testid="tree-count"]').textContent(), '123,458');
    assert.equal(await big.locator('[data-testid="tree-count"]').getAttribute('title'), '123,458 jobs in this view');
    assert.match(
      (await big.locator('.tree-label').getAttribute('title')) ?? '',
      new RegExp(`^sequence ${SEQUENCES[0]}: 123,458 jobs in this view$`),
    );
    assert.equal(
      await page
        .locator(`[data-group="project"][data-group-value="${PROJECT}"] [data-testid="tree-count"]`)
        .first()
        .getAttribute('title'),
      '123,696 jobs in this view',
    );

    const fit = await tableFit(page);
    assert.ok(fit.width >= TABLE_MIN_PX, `the table keeps ≥ ${TABLE_MIN_PX} px at ${tag} (has ${fit.width})`);
    assert.ok(fit.headFits, `no column below its minimum at ${tag}`);
    assert.ok(!fit.bodyScrolls, `the table does not scroll sideways at ${tag}`);
    if (size.width === 1280)
      assert.ok(Math.abs(fit.left - fit.mainLeft) < 1, 'at 1280 the tree takes no width from the table');
    assert.ok(
      (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) as boolean,
      `the page does not scroll sideways at ${tag}`,
    );
    await studio.screenshot(`group-tree-${tag}`);

    // A sequence picks its jobs. Where the tree lies over the table, picking it closes the tree so
    // the rows are not under it; beside the table it stays, and its × closes it.
    await page.locator(`[data-group="sequence"][data-group-value="${SEQUENCES[1]}"] .tree-label`).click();
    await page.waitForFunction(
      `[...document.querySelectorAll('.row[data-shot]')].map((r) => r.getAttribute('data-shot')).sort().join() === '${SEQUENCES[1]}_sh010,${SEQUENCES[1]}_sh020'`,
    );
    if (size.width === 1280) await page.locator('[data-testid="group-tree"]').waitFor({ state: 'detached' });
    await studio.screenshot(`group-tree-picked-${tag}`);
    if (size.width !== 1280) {
      await page.locator('[data-testid="tree-close"]').click();
      await page.locator('[data-testid="group-tree"]').waitFor({ state: 'detached' });
    }
    await page.locator('[data-preset="active"]').click();
    await page.evaluate(`window.localStorage.removeItem('shotfarm.queue.groups')`);
    await page.goto(page.url().replace(/#.*$/, '#/queue'));
  }
  assert.deepEqual(studio.pageErrors, []);
});

test('below 1400 px the group tree starts closed, also after the window shrinks, and the Groups button opens it; the choice is kept per browser', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{ duration: { fixedMs: 60_000 } }], start: false });
  const { page, farm } = studio;
  await farm.importJobs([{ id: `${SEQUENCES[0]}_sh010` }, { id: `${SEQUENCES[0]}_sh020` }], PROJECT, EPISODE);
  const tree = page.locator('[data-testid="group-tree"]');
  await page.evaluate(`window.localStorage.removeItem('shotfarm.queue.groups')`);

  await queueAt(page, { width: 1440, height: 900 });
  assert.equal(await tree.isVisible(), true, 'beside the table at 1440 it is open');
  // The tour's order: the page opened wide, then the window narrowed. Nobody chose, so it follows the width.
  await page.setViewportSize({ width: 1280, height: 720 });
  await tree.waitFor({ state: 'detached' });
  await page.reload();
  await page.locator('.row[data-job-id]').first().waitFor();
  assert.equal(await tree.count(), 0, 'a first paint at 1280 shows the rows, not the tree over them');

  await page.locator('[data-testid="groups-toggle"]').click();
  await tree.waitFor();
  await page.reload();
  await tree.waitFor();
  assert.equal(await page.locator('[data-testid="groups-toggle"]').getAttribute('aria-pressed'), 'true');

  await page.locator('[data-testid="tree-close"]').click();
  await queueAt(page, { width: 1440, height: 900 });
  assert.equal(await tree.count(), 0, 'closed by the person, it stays closed where there would be room');
  assert.deepEqual(studio.pageErrors, []);
});
