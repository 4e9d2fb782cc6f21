/**
 * The Queue's Forecast panel at studio scale (issue 28): an episode with a long name and 6-digit
 * counts (123,456 waiting, 234,567 done) due soon — flagged late, first — and one due in a month, on
 * time; each row's bar of done / running / waiting and its range against the due time, no sideways
 * scroll at 1280×720 and 1440×900. Screenshots at both sizes. Also prints what one forecast of
 * 123k waiting jobs costs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queueWithPanel, STUDIO_SIZES, studioSuite } from './support/studio.js';
import { copies } from './support/scale.js';

const suite = studioSuite();
const PROJECT = 'Moonfall_The_Long_Night_of_the_Lantern_Festival_feature';
const LONG = 'ep101_the_long_night_of_the_lantern_festival_extended_directors_cut';

test('the Forecast panel shows each episode’s bar and range against its due time, late first, at both sizes', {
  timeout: 180_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, {
    instances: [
      { gpuName: 'RTX 4090', duration: { fixedMs: 600_000 } },
      { gpuName: 'RTX 3060', duration: { fixedMs: 600_000 } },
    ],
  });
  const { page, farm } = studio;
  const e = farm.engine;
  const soon = new Date(Date.now() + 3_600_000).toISOString();
  const month = new Date(Date.now() + 30 * 86_400_000).toISOString();
  for (const [episode, due, n] of [
    [LONG, soon, 3],
    ['ep102', month, 2],
  ] as const) {
    const list = {
      project: PROJECT,
      episode,
      due,
      // ep102 goes ahead of the long episode's backlog: on time.
      priority: episode === 'ep102' ? 'high' : 'normal',
      shots: Array.from({ length: n }, (_, i) => ({ id: `sq010_sh${i}0`, stage: 'keyframe', template: 'txt2img' })),
    };
    const p = await e.call('import.preview', { fileName: 'l.json', content: JSON.stringify(list) });
    await e.call('import.commit', { previewId: p.previewId });
  }
  const first = (await e.call('jobs.list', { filter: { episode: LONG }, limit: 1 })).rows[0]?.id as string;
  copies(e.db, first, 123_456, 'queued', 10);
  copies(e.db, first, 234_567, 'completed', 200_000);
  const t0 = performance.now();
  const view = e.forecast.compute(Date.now());
  console.log(
    `one forecast of ${(123_459).toLocaleString()} waiting jobs on ${view.slots} slots: ${Math.round(performance.now() - t0)} ms`,
  );
  const long = view.groups.find((g) => g.key === `${PROJECT}/${LONG}`);
  assert.equal(long?.late, true, 'the long episode cannot make its due time');
  assert.equal(view.groups.find((g) => g.key === `${PROJECT}/ep102`)?.late, false);

  for (const size of STUDIO_SIZES) {
    const tag = `${size.width}x${size.height}`;
    await queueWithPanel(page, size, 'forecast-panel', 'forecast-toggle');
    const rows = page.locator('[data-testid="forecast-row"]');
    await rows.nth(1).waitFor();
    assert.equal(await rows.count(), 2);
    assert.equal(await rows.first().getAttribute('data-late'), '1', 'late first');
    assert.match((await rows.first().textContent()) ?? '', /234,567 \/ 358,026.*due .+ ✗/);
    assert.match((await rows.nth(1).textContent()) ?? '', /due .+ ✓/);
    assert.match((await page.locator('[data-testid="forecast-toggle"]').textContent()) ?? '', /1 late/);
    assert.ok(
      (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) as boolean,
      `the page does not scroll sideways at ${tag}`,
    );
    assert.ok(
      (await page.evaluate(
        `[...document.querySelectorAll('.fc-row')].every((r) => r.scrollWidth <= r.clientWidth + 1)`,
      )) as boolean,
      `no forecast row overflows at ${tag}`,
    );
    await studio.screenshot(`queue-forecast-${tag}`);
  }
  assert.deepEqual(studio.pageErrors, []);
});
