/**
 * A queued row's wait words follow the farm's state without a reload: "the farm is stopped" while
 * stopped, "paused" once paused (no job changed: the rows shown are read again); after Resume, while the farm waits for its storage (an output disk that is full), "the
 * farm waits for its storage: …" — not the stop that no longer holds it — and the rows read again
 * when the hold ends.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fillingDisk } from '../helpers/filling-disk.js';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();

/** The progress cell's words of every queued row shown, once there are `atLeast` and all match `words`. */
async function rowsSay(page: import('playwright-core').Page, atLeast: number, words: RegExp): Promise<string[]> {
  await page.waitForFunction(
    `(() => {
      const cells = [...document.querySelectorAll('.row[data-state="queued"] .cell-progress')];
      return cells.length >= ${atLeast} && cells.every((c) => ${words.toString()}.test(c.textContent));
    })()`,
    undefined,
    { timeout: 20_000 },
  );
  return page.locator('.row[data-state="queued"] .cell-progress').allTextContents();
}

test('queued rows say why they wait as the farm changes: stopped, then waiting for its storage after Resume', {
  timeout: 90_000,
}, async (ctx) => {
  const disk = fillingDisk(0);
  const studio = await suite.open(ctx, { instances: [{ duration: { fixedMs: 1_000 } }], outputFs: disk });
  const { page, farm } = studio;
  await farm.engine.call('farm.stop', {});
  await page.locator('[data-testid="farm-banner"][data-farm-state="stopped"]').waitFor();
  await farm.importJobs(['sh010', 'sh020', 'sh030', 'sh040', 'sh050', 'sh060'].map((id) => ({ id })));
  await rowsSay(page, 6, /the farm is stopped/);
  // Only the farm changes (no job does): the rows shown are read again.
  await farm.engine.call('farm.pause', {});
  await rowsSay(page, 6, /the farm is paused/);

  // The output disk is full: the first render's image cannot be written after Resume, and the farm holds.
  await farm.engine.call('farm.resume', {});
  await page.locator('[data-testid="farm-banner"][data-farm-state="storage"]').waitFor({ timeout: 30_000 });
  const words = await rowsSay(page, 1, /the farm waits for its storage: /);
  assert.ok(
    words.every((w) => !/stopped|resume it/.test(w)),
    `no stale stop: ${words.join(' | ')}`,
  );
  await studio.screenshot('rows-storage-hold');
  disk.free();
  await page.locator('[data-testid="farm-banner"]').waitFor({ state: 'detached', timeout: 30_000 });
  assert.deepEqual(studio.pageErrors, []);
});
