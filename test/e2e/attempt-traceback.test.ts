/**
 * Issue 25 build 7: the drawer's Attempts table expands a failed attempt to what ComfyUI said —
 * node, exception, its message and the traceback in a scrolling block — without widening the drawer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();

test("a failed attempt's row expands to ComfyUI's node, exception, message and traceback", {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{ script: ['error'], duration: { fixedMs: 150 } }] });
  const { page, farm } = studio;
  const [id] = await farm.importJobs([{ id: 'sq010_sh010' }], 'Moonfall', 'ep101');
  await farm.waitForStates([id!], ['failed_final'], 30_000);
  const [attempt] = await farm.engine.call('jobs.attempts', { id: id! });

  await page.evaluate(`location.hash = '#/queue/job/${id}'`);
  const drawer = page.locator(`[data-testid="job-drawer"][data-job-id="${id}"]`);
  const toggle = drawer.locator('[data-testid="attempts"] tr[data-attempt="1"] [data-action="attempt-detail"]');
  await toggle.waitFor();
  assert.equal(await drawer.locator('[data-testid="attempt-detail"]').count(), 0, 'collapsed at first');
  await toggle.click();
  const detail = drawer.locator('[data-testid="attempt-detail"]');
  await detail.waitFor();
  const head = (await detail.locator('.attempt-detail-head').textContent()) ?? '';
  assert.match(head, new RegExp(`${attempt!.nodeType} \\(node ${attempt!.nodeId}\\)`));
  assert.match(head, /RuntimeError/);
  assert.match(
    (await detail.locator('[data-testid="attempt-message"]').textContent()) ?? '',
    /expected input\[1, 16, 128, 128\] to have 4 channels/,
  );
  const traceback = detail.locator('[data-testid="attempt-traceback"]');
  assert.match(
    (await traceback.textContent()) ?? '',
    /File "<COMFYUI_ROOT>\/execution\.py", line 496, in execute[\s\S]*line 277, in process_inputs/,
  );
  assert.equal(
    await page.evaluate(`getComputedStyle(document.querySelector('[data-testid="attempt-traceback"]')).overflowY`),
    'auto',
    'a long traceback scrolls in its block',
  );

  for (const [w, h] of [
    [1280, 720],
    [1440, 900],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.evaluate(
      `document.querySelector('[data-testid="job-drawer"] [data-testid="attempts"]').scrollIntoView()`,
    );
    const sideways =
      await page.evaluate(`[document.documentElement, ...document.querySelectorAll('[data-testid="job-drawer"], [data-testid="job-drawer"] *')]
      .filter((el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible').map((el) => el.className || el.tagName)`);
    assert.deepEqual(sideways, [], `nothing scrolls sideways at ${w}`);
    // The reason has room: no word of it split over two lines ("RuntimeErr / or"), the line as wide as most of the table.
    const reason = (await page.evaluate(`(() => {
      const cell = document.querySelector('[data-testid="job-drawer"] [data-testid="attempts"] td.reason');
      const table = cell.closest('table');
      const broken = [];
      const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walk.nextNode(); node; node = walk.nextNode()) {
        for (const m of node.textContent.matchAll(/\\S+/g)) {
          const r = document.createRange();
          r.setStart(node, m.index);
          r.setEnd(node, m.index + m[0].length);
          const lines = new Set([...r.getClientRects()].map((b) => Math.round(b.top)));
          if (lines.size > 1) broken.push(m[0]);
        }
      }
      return { broken, share: cell.getBoundingClientRect().width / table.getBoundingClientRect().width, text: cell.textContent };
    })()`)) as { broken: string[]; share: number; text: string };
    assert.match(reason.text, /RuntimeError/);
    assert.deepEqual(reason.broken, [], `no word of the reason is split at ${w}`);
    assert.ok(reason.share > 0.6, `the reason is as wide as most of the table at ${w} (${reason.share.toFixed(2)})`);
    await studio.screenshot(`drawer-attempt-traceback-${w}`);
  }
  await toggle.click();
  await detail.waitFor({ state: 'detached' });
  assert.deepEqual(studio.pageErrors, []);
});
