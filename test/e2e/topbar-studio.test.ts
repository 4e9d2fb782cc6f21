/**
 * The top bar at studio scale: 123,456 queued, 12,345 failed, a thousand blocked, one rendering and
 * one next (prefetch), a long person name, the paused-farm and offline-workstation banners — at
 * 1280×720 and 1440×900 no item overlaps another (bounding boxes), none is cut or past the window,
 * the page does not scroll sideways, and every count says what it counts (a word, or a label on
 * hover). Screenshots of the Queue, Workstations, Timeline and a drawer at both sizes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../electron/server/server.js';
import { openAppPage } from '../helpers/browser.js';
import { startFarm } from '../helpers/farm.js';
import { addPerson } from '../helpers/people.js';
import { addTemplateVariant } from '../helpers/template-variants.js';
import { SCREENSHOTS, studioSuite } from './support/studio.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { copyJob as copies } from '../helpers/job-copies.js';
import { topBarProblems } from '../tour/geometry.js';

const suite = studioSuite();
const SIZES = [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
];
const LONG_NAME = 'maximiliana.fitzgerald-okonkwo';

test('the top bar holds 123,456 queued, a long name and every banner at 1280×720 and 1440×900: no overlap, nothing cut, counts in words', {
  timeout: 150_000,
}, async (ctx) => {
  const farm = await startFarm({
    instances: [{ duration: { fixedMs: 120_000 } }],
    start: false,
    config: { prefetch: true },
  });
  ctx.after(() => farm.close());
  const { engine } = farm;
  // A workstation that never answers: the offline banner.
  await engine.call('instances.add', { name: 'gpu-offline-07', url: 'http://127.0.0.1:9' });
  await addTemplateVariant(engine, 'txt2img', { name: 'tagged', tags: ['no-such-tag'] });
  const ids = await farm.importJobs([
    { id: 'sh001' },
    { id: 'sh002' },
    { id: 'sh003' },
    { id: 'sh004', template: 'tagged' },
  ]);
  const [, , base, tagged] = ids as [string, string, string, string];
  // Queued: 122,222 (the base and its copies) + 1,234 blocked (no workstation has their tag) = 123,456 once two are dispatched.
  copies(engine.db, base, 122_221, 'queued', 0);
  copies(engine.db, tagged, 1_233, 'queued', 0);
  copies(engine.db, base, 12_345, 'failed_final', 200_000);
  farm.startScheduler();

  const server = await startServer({ engine, staticDir: suite.built.dir, demoLabel: 'Demo farm' });
  ctx.after(() => server.close());
  const token = await addPerson(engine, LONG_NAME, 'operator');
  const { context, page, errors } = await openAppPage(suite.browser, `${server.url}/?token=${token}#/queue`);
  ctx.after(() => context.close());

  await farm.waitFor(
    'one rendering, one next',
    async () => (await engine.call('farm.status', {})).jobsNext === 1,
    30_000,
  );
  await page.locator('[data-testid="signed-in"]').waitFor();
  await page.locator('[data-testid="offline-banner"]').waitFor({ timeout: 30_000 });
  await page.waitForFunction(
    `document.querySelector('[data-summary-state="queued"] b')?.textContent === '123,456'`,
    undefined,
    { timeout: 30_000 },
  );
  await page.waitForFunction(`document.querySelector('[data-summary-state="next"] b')?.textContent === '1'`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Rendering, next and 123,456 queued, before the pause takes the next one back — and at the
  // widths between and where the bar takes its full form (1920: full labels and the name).
  for (const size of [...SIZES, { width: 1600, height: 900 }, { width: 1920, height: 1080 }]) {
    await page.setViewportSize(size);
    await page.waitForTimeout(300); // a layout pass after the resize (what is measured is a condition, not this)
    assert.deepEqual(await topBarProblems(page), [], `queue with a next prompt at ${size.width}x${size.height}`);
    await page.screenshot({ path: join(SCREENSHOTS, `topbar-studio-next-${size.width}x${size.height}.png`) });
  }
  await page.locator('[data-testid="farm-pause"]').click();
  await page.locator('[data-testid="farm-banner"][data-farm-state="paused"]').waitFor();

  for (const size of SIZES) {
    const tag = `${size.width}x${size.height}`;
    await page.setViewportSize(size);
    for (const view of ['queue', 'workstations', 'timeline'] as const) {
      await page.locator(`[data-tab="${view}"]`).click();
      await page.waitForTimeout(300); // a layout pass after the view change (what is measured is a condition, not this)
      assert.deepEqual(await topBarProblems(page), [], `${view} at ${tag}`);
      // The counts that matter most keep their words at studio scale.
      for (const key of ['running', 'queued'])
        assert.ok(
          await page.locator(`[data-summary-state="${key}"] .sum-word`).isVisible(),
          `${key} in words on ${view} at ${tag}`,
        );
      await page.screenshot({ path: join(SCREENSHOTS, `topbar-studio-${view}-${tag}.png`) });
    }
    await page.locator('[data-tab="queue"]').click();
    await page.locator('.row[data-state="running"]').first().click();
    await page.locator('[data-testid="job-drawer"]').waitFor();
    assert.deepEqual(await topBarProblems(page), [], `drawer at ${tag}`);
    await page.screenshot({ path: join(SCREENSHOTS, `topbar-studio-drawer-${tag}.png`) });
    await page.keyboard.press('Escape');
  }
  assert.equal(
    await page
      .locator('[data-testid="signed-in"]')
      .getAttribute('title')
      .then((t) => t?.includes(LONG_NAME)),
    true,
    'the whole name on hover',
  );
  assert.deepEqual(errors, []);
});
