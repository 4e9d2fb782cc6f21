/**
 * The Timeline at studio scale: two workstations whose long names differ only at the end keep that
 * end in their lane names (cut in the middle, as the queue's shot codes are); a rendering prompt is
 * drawn solid, its server's progress messages or not (hatching means a prompt only waiting there);
 * and the axis labels at the track's edges are not cut. At 1280×720 and 1440×900.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();
const NAMES = ['lighting-dept-floor3-rtx6000-ada-render-01', 'lighting-dept-floor3-rtx6000-ada-render-02'];
const SIZES = [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
];

test('Timeline lanes keep the end of a long workstation name, a render is drawn solid, and the edge time labels are whole', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, {
    instances: [{ duration: { fixedMs: 60_000 } }, { duration: { fixedMs: 60_000 } }],
  });
  const { page, farm } = studio;
  const listed = await farm.engine.call('instances.list', {});
  for (const [n, inst] of listed.entries())
    await farm.engine.call('instances.update', { id: inst.id, name: NAMES[n] as string, url: inst.url });
  const ids = await farm.importJobs([{ id: 'sq010_sh010' }, { id: 'sq010_sh020' }], 'Moonfall', 'ep101');
  await farm.waitForStates(ids, ['running'], 30_000);

  // The page's clock held 2 s past a whole minute: the 5-minute window's last tick (that minute)
  // stands 2 s from the track's right edge, where a label centred on it would be cut.
  const minute = Math.ceil(Date.now() / 60e3) * 60e3;
  await page.clock.setFixedTime(minute + 2_000);
  await page.reload();
  await page.locator('[data-tab="timeline"]').click();
  await page.locator('.tbar[data-outcome="running"][data-started="yes"]').first().waitFor();
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.locator('[data-range="5 min"]').click();
    const tag = `${size.width}x${size.height}`;
    for (const name of NAMES) {
      const shown = (await page.evaluate(`(() => {
        const el = document.querySelector('.lane[data-lane="${name}"] .lane-name');
        const box = el.getBoundingClientRect();
        const tail = el.querySelector('.cut-tail');
        if (!tail) return null;
        const t = tail.getBoundingClientRect();
        return { tail: tail.textContent, whole: t.width > 0 && t.right <= box.right + 0.5 };
      })()`)) as { tail: string; whole: boolean } | null;
      assert.deepEqual(shown, { tail: name.slice(-3), whole: true }, `${name}'s end is shown at ${tag}`);
    }
    const fill = await page.evaluate(
      `getComputedStyle(document.querySelector('.tbar[data-outcome="running"][data-started="yes"]')).backgroundImage`,
    );
    assert.equal(fill, 'none', `a render is solid, not hatched, at ${tag}`);
    const edges = (await page.evaluate(`(() => {
      const track = document.querySelector('.axis-track').getBoundingClientRect();
      const ticks = [...document.querySelectorAll('.axis-track .tick')].map((t) => t.getBoundingClientRect());
      return { cut: ticks.filter((r) => r.left < track.left - 0.5 || r.right > track.right + 0.5).length, n: ticks.length };
    })()`)) as { cut: number; n: number };
    assert.ok(edges.n > 2, `the axis has labels at ${tag}`);
    assert.equal(edges.cut, 0, `no time label is cut at the track's edges at ${tag}`);
    await studio.screenshot(`timeline-lanes-${tag}`);
  }
  assert.deepEqual(studio.pageErrors, []);
});
