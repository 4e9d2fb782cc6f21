/**
 * With prefetch on, a prompt sent to a workstation ahead waits there behind the running one: the
 * Studio shows it as "next", never as running. Three GPUs, each rendering one prompt with one more
 * sent behind it: the top bar says "3 running · 3 next", the rows "Next on sim-N", each card
 * "1 rendering + 1 next", the cancel question interrupts 3 and lists the 3 next apart, every
 * Timeline lane is busy at most 100 %, the drawer shows no start before it starts — nor after
 * Pause took the prompt back. Screenshots of the Queue, Workstations, Timeline and drawer at
 * 1280×720 and 1440×900.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();
const SIZES = [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
];
/** Long renders: the rendering / next split stays put while the test looks. */
const RENDER_MS = 60_000;

const text = async (page: import('playwright-core').Page, selector: string) =>
  ((await page.locator(selector).first().textContent()) ?? '').trim();

test('prefetch on: 3 GPUs show 3 running and 3 next in the counts, rows, cards, cancel question, Timeline and drawer', {
  timeout: 150_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, {
    instances: [0, 1, 2].map(() => ({ duration: { fixedMs: RENDER_MS } })),
    config: { prefetch: true },
  });
  const { page, farm } = studio;
  const ids = await farm.importJobs(
    Array.from({ length: 9 }, (_, i) => ({ id: `sh${String(i + 1).padStart(3, '0')}` })),
  );
  const t0 = Date.now();

  // The engine: six jobs are `running` in the store, three of them have not started on their GPU.
  await farm.waitFor(
    '3 rendering and 3 next',
    async () => {
      const s = await farm.engine.call('farm.status', {});
      return s.jobsByState.running === 6 && s.jobsNext === 3;
    },
    30_000,
  );

  // Top bar: "3 running · 3 next".
  await page.waitForFunction(
    `document.querySelector('[data-summary-state="running"] b')?.textContent === '3' && document.querySelector('[data-summary-state="next"] b')?.textContent === '3'`,
  );
  assert.match(await text(page, '[data-summary-state="next"]'), /^3\s*next$/);

  // Rows: three "Next on sim-N", three running with no such note.
  await page.waitForFunction(`document.querySelectorAll('.row [data-phase="next"]').length === 3`);
  const notes = await page.locator('[data-testid="next-on"]').allTextContents();
  assert.equal(notes.length, 3);
  for (const n of notes) assert.match(n, /^Next on sim-[012] · after sh\d{3} keyframe$/);
  assert.equal(await page.locator('.row[data-state="running"]:not(:has([data-phase="next"]))').count(), 3);

  // The drawer of a next job: not started.
  await page.locator('.row:has([data-phase="next"])').first().click();
  await page.locator('[data-testid="drawer-started"]').waitFor();
  assert.match(await text(page, '[data-testid="drawer-started"]'), /^not yet/);
  assert.match(await text(page, '[data-testid="drawer-next"]'), /^next: waits behind sh\d{3} keyframe$/);
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await studio.screenshot(`prefetch-drawer-next-${size.width}x${size.height}`);
  }
  await page.keyboard.press('Escape');
  await page.locator('[data-testid="job-drawer"]').waitFor({ state: 'detached' });
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await studio.screenshot(`prefetch-queue-${size.width}x${size.height}`);
  }

  // The cancel question: 3 interrupted, 3 next listed apart; going back cancels nothing.
  await page.keyboard.press('Control+a');
  await page.locator('.selcount', { hasText: '9 selected' }).waitFor();
  await page.keyboard.press('Delete');
  const dialog = page.locator('[data-testid="confirm-dialog"]');
  await dialog.waitFor();
  assert.equal(
    await text(page, '[data-testid="confirm-summary"]'),
    'Cancel 9 jobs: 3 are rendering now and will be interrupted. 3 are next on workstations, not started, and will be taken off.',
  );
  const lines = await dialog.locator('.confirm-details li').allTextContents();
  const details = lines.join('\n');
  const interrupted = details.slice(details.indexOf('Interrupted'), details.indexOf('Next, not started'));
  assert.equal((interrupted.match(/ on sim-\d/g) ?? []).length, 3, `three interrupted: ${details}`);
  assert.match(details, /Next, not started \(taken off, nothing interrupted\):/);
  await studio.screenshot('prefetch-cancel-question');
  await page.locator('[data-testid="confirm-no"]').click();
  await dialog.waitFor({ state: 'detached' });
  await page.keyboard.press('Escape');

  // Cards: "1 rendering + 1 next", and the slots say 1 of 1 (not 2/1).
  await page.locator('[data-tab="workstations"]').click();
  for (const name of ['sim-0', 'sim-1', 'sim-2']) {
    const card = page.locator(`[data-instance="${name}"]`);
    await card.locator('[data-testid="current-summary"]', { hasText: '1 rendering + 1 next' }).waitFor();
    assert.equal(await card.locator('[data-testid="slots"]').textContent(), '1/1');
    assert.equal(await card.locator('[data-current="next"]').count(), 1);
  }
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await studio.screenshot(`prefetch-workstations-${size.width}x${size.height}`);
  }

  // Timeline: once the bars span most of the shortest window, two overlapping bars per lane would
  // read well over 100 % busy if the waiting one counted.
  await page.locator('[data-tab="timeline"]').click();
  const wait = 16_000 - (Date.now() - t0);
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  await page.locator('[data-range="fit"]').click();
  await page.waitForFunction(`document.querySelectorAll('[data-testid="tbar-wait"]').length >= 3`);
  const busy = await page.locator('[data-testid="lane-busy"]').allTextContents();
  assert.equal(busy.length, 3);
  for (const b of busy) {
    const pct = Number(/busy (\d+)%/.exec(b)?.[1]);
    assert.ok(pct > 0 && pct <= 100, `busy ≤ 100 %: ${b}`);
  }
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await studio.screenshot(`prefetch-timeline-${size.width}x${size.height}`);
  }

  // Pause takes the next prompts back unstarted: their drawer shows no start.
  const next = (await farm.engine.call('jobs.list', { filter: { states: ['running'] } })).rows.filter(
    (j) => j.attempt && j.attempt.phase !== 'running',
  );
  assert.equal(next.length, 3);
  await page.locator('[data-testid="farm-pause"]').click();
  await farm.waitForStates(
    next.map((j) => j.id),
    ['queued'],
    30_000,
  );
  const back = await farm.job(next[0]!.id);
  assert.equal(back.startedAt, null, 'a prompt taken back by Pause never started');
  await page.locator('[data-tab="queue"]').click();
  await page.locator(`.row[data-job-id="${back.id}"][data-state="queued"]`).click();
  await page.locator('[data-testid="drawer-started"]').waitFor();
  assert.equal(await text(page, '[data-testid="drawer-started"]'), '—');
  assert.equal(ids.length, 9);
  assert.deepEqual(studio.pageErrors, []);
});
