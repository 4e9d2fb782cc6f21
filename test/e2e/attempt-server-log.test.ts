/**
 * Issue 25 build 7: a failed attempt's detail in the drawer shows the lines its ComfyUI logged around
 * the failure (`/internal/logs/raw`), collapsed under their count, monospace, scrolling inside its
 * block without widening the drawer; a server that does not offer its log gets the words for it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();

const LONG = `[custom_nodes] ${'tensor([0.1234, 0.5678]) '.repeat(30)}`;

test("a failed attempt's detail shows the server's log lines around the failure, collapsed, scrolling inside", {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{ script: ['error'], duration: { fixedMs: 150 } }] });
  const { page, farm } = studio;
  // A custom node that prints a long line just before the prompt: it must wrap, not widen the drawer.
  const res = await fetch(`${farm.sims[0]!.url}/__sim/log`, {
    method: 'POST',
    body: JSON.stringify({ m: `${LONG}\n` }),
  });
  assert.equal(res.status, 200);
  const [id] = await farm.importJobs([{ id: 'sq010_sh010' }], 'Moonfall', 'ep101');
  await farm.waitForStates([id!], ['failed_final'], 30_000);
  let lines = 0;
  await farm.waitFor('the server log', async () => {
    const [a] = await farm.engine.call('jobs.attempts', { id: id! });
    lines = a?.serverLog?.kind === 'lines' ? a.serverLog.lines.length : 0;
    return lines > 0;
  });

  await page.evaluate(`location.hash = '#/queue/job/${id}'`);
  const drawer = page.locator(`[data-testid="job-drawer"][data-job-id="${id}"]`);
  await drawer.locator('[data-testid="attempts"] tr[data-attempt="1"] [data-action="attempt-detail"]').click();
  const block = drawer.locator('[data-testid="attempt-server-log"]');
  await block.waitFor();
  const summary = block.locator('summary');
  assert.equal((await summary.textContent())?.trim(), `Server log (${lines} lines around the failure)`);
  const body = block.locator('[data-testid="attempt-server-log-lines"]');
  assert.equal(await body.isVisible(), false, 'collapsed at first');
  await summary.click();
  await body.waitFor({ state: 'visible' });
  const text = (await body.textContent()) ?? '';
  assert.match(text, /got prompt/);
  assert.match(text, /!!! Exception during processing !!! Given groups=1/);
  assert.match(text, /Traceback \(most recent call last\):\n\d\d:\d\d:\d\d {3}File "<COMFYUI_ROOT>\/execution\.py"/);
  assert.match(text, /tensor\(\[0\.1234/);
  const style = (p: string) =>
    page.evaluate(`getComputedStyle(document.querySelector('[data-testid="attempt-server-log-lines"]')).${p}`);
  assert.equal(await style('overflowY'), 'auto', 'a long log scrolls in its block');
  // Opened, it shows its end (the failure), not the oldest line.
  await page.waitForFunction(
    `(() => { const el = document.querySelector('[data-testid="attempt-server-log-lines"]'); return el.scrollHeight > el.clientHeight && el.scrollTop + el.clientHeight >= el.scrollHeight - 2; })()`,
    undefined,
    { timeout: 5_000 },
  );
  assert.match(String(await style('fontFamily')), /mono/i);

  for (const [w, h] of [
    [1280, 720],
    [1440, 900],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.evaluate(
      `document.querySelector('[data-testid="attempt-server-log"]').scrollIntoView({ block: 'center' })`,
    );
    const sideways =
      await page.evaluate(`[document.documentElement, ...document.querySelectorAll('[data-testid="job-drawer"], [data-testid="job-drawer"] *')]
      .filter((el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible').map((el) => el.className || el.tagName)`);
    assert.deepEqual(sideways, [], `nothing scrolls sideways at ${w}`);
    assert.equal(
      await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth'),
      true,
      `the page does not scroll sideways at ${w}`,
    );
    await studio.screenshot(`drawer-attempt-server-log-${w}`);
  }
  assert.deepEqual(studio.pageErrors, []);
});

test('a server without /internal/logs/raw: the detail says it does not offer its log', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{ script: ['error'], serverLog: false }] });
  const { page, farm } = studio;
  const [id] = await farm.importJobs([{ id: 'sq010_sh020' }], 'Moonfall', 'ep101');
  await farm.waitForStates([id!], ['failed_final'], 30_000);
  await farm.waitFor('the word', async () => {
    const [a] = await farm.engine.call('jobs.attempts', { id: id! });
    return a?.serverLog?.kind === 'not_offered';
  });
  await page.evaluate(`location.hash = '#/queue/job/${id}'`);
  const drawer = page.locator(`[data-testid="job-drawer"][data-job-id="${id}"]`);
  await drawer.locator('[data-testid="attempts"] tr[data-attempt="1"] [data-action="attempt-detail"]').click();
  const note = drawer.locator('[data-testid="attempt-server-log-note"]');
  await note.waitFor();
  assert.match(
    (await note.textContent()) ?? '',
    /this ComfyUI does not offer its log — GET \/internal\/logs\/raw answered 404: an older ComfyUI/,
  );
  assert.equal(await drawer.locator('[data-testid="attempt-server-log"]').count(), 0);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.evaluate(
    `document.querySelector('[data-testid="attempt-server-log-note"]').scrollIntoView({ block: 'center' })`,
  );
  await studio.screenshot('drawer-attempt-server-log-not-offered-1280');
  assert.deepEqual(studio.pageErrors, []);
});
