/**
 * The Timeline's bars are links to their jobs: a click, or Enter on a focused bar, opens that job's
 * drawer at the queue's own address (`#/queue/job/<id>`). The farm's paused and stopped stretches
 * are drawn across the lanes, labelled, so the idle gap a pause leaves is not read as idle GPUs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();

test('clicking a Timeline bar opens the drawer of that job; Enter on a focused bar opens its job', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, {
    instances: [{ duration: { fixedMs: 300 } }, { duration: { fixedMs: 300 } }],
  });
  const { page, farm } = studio;
  const ids = await farm.importJobs(
    ['sq010_sh010', 'sq010_sh020', 'sq020_sh030'].map((id) => ({ id })),
    'Moonfall',
    'ep101',
  );
  await farm.waitForStates(ids, ['completed'], 30_000);

  await page.locator('[data-tab="timeline"]').click();
  await page.locator('.tbar[data-outcome="completed"]').first().waitFor();
  await page.locator('[data-range="fit"]').click();
  const [first, second] = ids as [string, string];
  const bar = page.locator(`.tbar[data-job-id="${first}"]`);
  await bar.click();
  const drawer = page.locator(`[data-testid="job-drawer"][data-job-id="${first}"]`);
  await drawer.waitFor();
  assert.match(new URL(page.url()).hash, new RegExp(`^#/queue/job/${first}`), "the queue drawer's own address");
  assert.match((await drawer.locator('[data-testid="shot-path"]').textContent()) ?? '', /sq010_sh010/);

  // Back returns to the Timeline; the keyboard opens the other job's bar.
  await page.goBack();
  await page.locator('main[data-view="timeline"]').waitFor();
  await page.locator(`.tbar[data-job-id="${second}"]`).focus();
  await page.keyboard.press('Enter');
  await page.locator(`[data-testid="job-drawer"][data-job-id="${second}"]`).waitFor();
  assert.match(
    (await page.locator('[data-testid="job-drawer"] [data-testid="shot-path"]').textContent()) ?? '',
    /sq010_sh020/,
  );
  assert.deepEqual(studio.pageErrors, []);
});

test('a paused stretch is drawn as a labelled band across every lane, with its legend', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, {
    instances: [{ duration: { fixedMs: 200 } }, { duration: { fixedMs: 200 } }],
  });
  const { page, farm } = studio;
  // A third lane with a studio-long name (it never answers, so it takes no work).
  await farm.engine.call('instances.add', {
    name: 'gpu-a6000-rack07-slot3.lighting-dept.moonfall-studio.local',
    url: 'http://127.0.0.1:9',
  });
  const before = await farm.importJobs([{ id: 'sh010' }, { id: 'sh020' }]);
  await farm.waitForStates(before, ['completed'], 30_000);
  await farm.engine.call('farm.pause', { by: 'ana' });
  await new Promise((r) => setTimeout(r, 2_500));
  await farm.engine.call('farm.resume', { by: 'ana' });
  const after = await farm.importJobs([{ id: 'sh030' }, { id: 'sh040' }]);
  await farm.waitForStates(after, ['completed'], 30_000);

  await page.locator('[data-tab="timeline"]').click();
  await page.locator('.tbar[data-outcome="completed"]').first().waitFor();
  await page.locator('[data-range="fit"]').click();
  const band = page.locator('[data-testid="farm-band"][data-state="paused"]');
  await band.waitFor();
  assert.equal(await band.count(), 1, 'one pause, one band');
  assert.match((await band.textContent()) ?? '', /paused · ana/);
  assert.match((await band.getAttribute('title')) ?? '', /Farm paused by ana.*not idle GPUs/);

  // Over the lanes: as tall as all of them together, and between the attempts before and after it.
  // Read in one go: the window follows "now", so the boxes shift between separate reads.
  const ids = JSON.stringify({ before, after });
  const geo = (await page.evaluate(`(() => {
    const { before, after } = ${ids};
    const box = (el) => el.getBoundingClientRect();
    const over = box(document.querySelector('[data-testid="farm-band-over"]'));
    const lanes = [...document.querySelectorAll('.lane')].map(box);
    const bar = (id) => box(document.querySelector('.tbar[data-job-id="' + id + '"]'));
    return {
      lanes: lanes.length,
      spans: over.top <= lanes[0].top + 1 && over.bottom >= lanes[lanes.length - 1].bottom - 1,
      beforeLeft: before.every((id) => bar(id).right <= over.left + 1),
      afterRight: after.every((id) => bar(id).left >= over.right - 1),
    };
  })()`)) as { lanes: number; spans: boolean; beforeLeft: boolean; afterRight: boolean };
  assert.deepEqual(geo, { lanes: 3, spans: true, beforeLeft: true, afterRight: true });

  // The legend names the band.
  assert.equal(await page.locator('.legend', { hasText: 'farm paused' }).count(), 1);
  for (const size of [
    { width: 1280, height: 720 },
    { width: 1440, height: 900 },
  ]) {
    await page.setViewportSize(size);
    assert.ok(
      (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) as boolean,
      `no sideways scroll at ${size.width}`,
    );
    await studio.screenshot(`timeline-pause-band-${size.width}x${size.height}`);
  }
  // In a 15-minute window the pause is a sliver at the right end: its label still reads, inside the track.
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.locator('[data-range="15 min"]').click();
  const label = (await page.evaluate(`(() => {
    const l = document.querySelector('[data-testid="farm-band"] .farm-band-label').getBoundingClientRect();
    const t = document.querySelector('.band-track').getBoundingClientRect();
    return { width: l.width, inside: l.left >= t.left - 0.5 && l.right <= t.right + 0.5 };
  })()`)) as { width: number; inside: boolean };
  assert.ok(label.width > 40 && label.inside, `the label reads in full: ${JSON.stringify(label)}`);
  await studio.screenshot('timeline-pause-band-15min-1280x720');
  assert.deepEqual(studio.pageErrors, []);
});
