/**
 * Issue 28 item 6, in Chromium: a template's row in the Templates panel opens two plots drawn from
 * `templates.history` — VRAM per run over time (a point per measured run, out-of-memory runs marked
 * apart, the declared number and what admission uses as lines) and run time by GPU model (warm runs
 * with their median and p90, cold starts apart) — for the newest 500 of 123,456 measured runs and
 * 1,242 completed ones, said so; a template never run says "no measured runs yet". An artist may
 * look. Long template names and 6-digit counts at 1280×720 and 1440×900, no sideways scroll.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { startServer } from '../../electron/server/server.js';
import { ManualClock } from '../../electron/engine/clock.js';
import { addVramSample } from '../../electron/engine/store/vram-sample-store.js';
import { RTX3060, RTX4090, writeRun } from '../helpers/template-runs.js';
import { startFarm } from '../helpers/farm.js';
import { peoplePages } from './support/people.js';
import { shootAtStudioSizes, studioSuite } from './support/studio.js';

const suite = studioSuite();
const LONG = 'moonfall-ep101-keyframe-sdxl-img2img-with-layout-plate-and-detail-lora-v2';
const UNRUN = 'moonfall-ep102-motion-svd-never-rendered';
const MEASURED = 123_456;
/** A GPU model with a long name, cut in the plots' labels (the full name in their titles). */
const ADA = 'NVIDIA RTX 6000 Ada Generation';

const template = (name: string) =>
  JSON.stringify({
    name,
    stage: 'keyframe',
    vram_gb: 10,
    parameters: { prompt: '6.text' },
    workflow: {
      '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
      '5': { class_type: 'EmptyLatentImage', inputs: { width: 1024, height: 1024, batch_size: 1 } },
      '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a frame', clip: ['4', 1] } },
    },
  });

type Box = { x: number; y: number; width: number; height: number };
const boxOf = async (l: Locator): Promise<Box> => {
  const b = await l.boundingBox();
  assert.ok(b, 'drawn (has a box on the page)');
  return b;
};
const midY = (b: Box) => b.y + b.height / 2;
const midX = (b: Box) => b.x + b.width / 2;
const inside = (b: Box, outer: Box) =>
  b.x >= outer.x - 1 &&
  b.y >= outer.y - 1 &&
  b.x + b.width <= outer.x + outer.width + 1 &&
  b.y + b.height <= outer.y + outer.height + 1;

test('a template row opens VRAM per run over time and run time by GPU model, drawn for its real runs (the newest 500 of each, said so); one never run says so', {
  timeout: 180_000,
}, async (ctx) => {
  const farm = await startFarm({ instances: [], start: false, templates: [] });
  ctx.after(() => farm.close());
  const db = farm.engine.db;
  const t = await farm.engine.call('templates.add', { content: template(LONG), fileName: 'long.json' });
  await farm.engine.call('templates.add', { content: template(UNRUN), fileName: 'unrun.json' });
  // 123,456 measured runs as the sampler stores them, one every 1.4 s up to now: three in four on
  // the 4090 (6.3–6.55 GB), the rest on the 3060, where every 200th ran out of memory with an
  // artist's desktop on it ("needed more than 11.1 GB"); the newest 20 on a GPU with a long name.
  const now = Date.now();
  const gpuOf = (i: number) => (i >= MEASURED - 20 ? ADA : i % 4 === 3 ? RTX3060 : RTX4090);
  const outcomeOf = (i: number) => (gpuOf(i) === RTX3060 && i % 200 === 199 ? 'oom' : 'ok');
  db.transaction(() => {
    for (let i = 0; i < MEASURED; i++) {
      const gpu = gpuOf(i);
      const oom = outcomeOf(i) === 'oom';
      addVramSample(db, {
        attemptId: `a${i}`,
        templateId: t.id,
        gpu,
        pixels: 1024 * 1024,
        outcome: oom ? 'oom' : 'ok',
        needGb: oom ? 11.1 : 6.3 + (i % 6) * 0.05,
        addedGb: 5.9,
        peakGb: 6.6,
        baselineGb: 0.4,
        otherGb: 0.4,
        warm: true,
        reads: 8,
        at: now - (MEASURED - i) * 1_400,
      });
    }
  });
  const newest = Array.from({ length: 500 }, (_, k) => MEASURED - 500 + k);
  const oomsShown = newest.filter((i) => outcomeOf(i) === 'oom').length;
  const shownOn = (gpu: string) => newest.filter((i) => gpuOf(i) === gpu && outcomeOf(i) === 'ok').length;
  assert.ok(oomsShown >= 2, 'some out-of-memory runs are among the newest 500');
  // Completed runs: on the 4090 a cold run (the model load) and 1,234 warm ones of 80–99 s; then on
  // the 3060 a cold 300 s run and two warm ones, fewer than the model needs for a median; last, on
  // the RTX 6000 Ada a cold 120 s run and three warm ones of 40–44 s.
  const shots = Array.from({ length: 1_242 }, (_, i) => ({ id: `sh${String(i).padStart(5, '0')}`, template: LONG }));
  const ids = await farm.importJobs(shots, 'moonfall', 'ep101');
  const clock = new ManualClock(now - 48 * 3_600_000);
  db.transaction(() => {
    let n = 0;
    writeRun(db, clock, ids[n++]!, 'render-01', RTX4090, 0, 200_000);
    for (let i = 0; i < 1_234; i++) writeRun(db, clock, ids[n++]!, 'render-01', RTX4090, 0, 80_000 + (i % 20) * 1_000);
    writeRun(db, clock, ids[n++]!, 'render-02', RTX3060, 0, 300_000);
    for (let i = 0; i < 2; i++) writeRun(db, clock, ids[n++]!, 'render-02', RTX3060, 0, 150_000);
    writeRun(db, clock, ids[n++]!, 'render-03', ADA, 0, 120_000);
    for (let i = 0; i < 3; i++) writeRun(db, clock, ids[n++]!, 'render-03', ADA, 0, 40_000 + i * 2_000);
  });
  const learned = await farm.engine.call('templates.vram', { name: LONG });
  const runTimes = await farm.engine.call('templates.runTimes', { name: LONG });
  const server = await startServer({ engine: farm.engine, staticDir: suite.built.dir });
  ctx.after(() => server.close());
  const open = peoplePages(ctx, suite.browser, farm.engine, server.url);

  // An artist may look (templates are read by everyone; only pinning and registering are the operator's).
  const { page, errors } = await open('mira', 'artist', 'settings');
  const row = page.locator(`tr[data-template="${LONG}"]`);
  await row.locator('[data-testid="template-plots-toggle"]').click();
  const plots = page.locator(`[data-plots="${LONG}"] [data-testid="template-plots"]`);
  const vram = plots.locator('[data-testid="vram-plot"]');
  await vram.locator('[data-testid="vram-point"]').first().waitFor();
  assert.equal(await row.locator('[data-testid="template-plots-toggle"]').getAttribute('aria-expanded'), 'true');

  // VRAM: a point per measured run shown, the out-of-memory ones apart, at their own numbers.
  assert.match(
    await plots.locator('[data-testid="vram-count"]').innerText(),
    /v1 · newest 500 of 123,456 measured runs/,
  );
  const points = vram.locator('[data-testid="vram-point"]');
  assert.equal(await points.count(), 500);
  const ooms = vram.locator('[data-testid="vram-point"][data-outcome="oom"]');
  assert.equal(await ooms.count(), oomsShown);
  const oomGbs = await Promise.all((await ooms.all()).map((o) => o.getAttribute('data-gb')));
  assert.deepEqual(new Set(oomGbs), new Set(['11.1']));
  assert.equal(
    await vram.locator(`[data-testid="vram-point"][data-gpu="${RTX3060}"][data-outcome="ok"]`).count(),
    shownOn(RTX3060),
  );
  assert.match(
    (await ooms.first().locator('title').textContent()) ?? '',
    /RTX 3060, .*: out of memory — needed more than 11\.1 GB/,
  );
  // The lines: declared, and what admission uses on each GPU model (the engine's own numbers).
  const declared = vram.locator('[data-testid="vram-line"][data-kind="declared"]');
  assert.equal(await declared.getAttribute('data-gb'), '10');
  const uses4090 = learned.gpus.find((g) => g.gpu === RTX4090)!.use;
  assert.equal(uses4090.source, 'learned');
  const line4090 = vram.locator(`[data-testid="vram-line"][data-gpu="${RTX4090}"]`);
  assert.equal(await line4090.getAttribute('data-gb'), String(uses4090.gb));
  assert.match((await line4090.locator('text').textContent()) ?? '', new RegExp(`RTX 4090 ${uses4090.gb} GB`));
  // Drawn where the numbers say: inside the plot, the 4090's line below declared 10 GB, the OOM marks
  // above it, every 4090 run below its learned line (p95 + margin).
  const svg = await boxOf(vram.locator('[data-testid="vram-svg"]'));
  const yDeclared = midY(await boxOf(declared.locator('line')));
  const y4090 = midY(await boxOf(line4090.locator('line')));
  assert.ok(
    y4090 > yDeclared + 10,
    `the learned ${uses4090.gb} GB line (y ${y4090}) below declared 10 GB (y ${yDeclared})`,
  );
  for (const b of await Promise.all((await ooms.all()).map(boxOf)))
    assert.ok(midY(b) < yDeclared, 'an OOM at 11.1 GB above the declared line');
  const runs4090 = await vram.locator(`[data-testid="vram-point"][data-gpu="${RTX4090}"]`).all();
  assert.equal(runs4090.length, shownOn(RTX4090));
  assert.equal(await vram.locator(`[data-testid="vram-point"][data-gpu="${ADA}"]`).count(), 20);
  for (const b of await Promise.all(runs4090.slice(0, 40).map(boxOf))) {
    assert.ok(inside(b, svg), 'a point inside the plot');
    assert.ok(midY(b) > y4090, 'a 4090 run below what admission uses there');
  }
  // Later runs further right: the first drawn point is left of the last.
  assert.ok(midX(await boxOf(points.first())) < midX(await boxOf(points.last())) - 100, 'time runs to the right');
  assert.match(
    await vram.locator('[data-testid="vram-summary"]').innerText(),
    /declared 10 GB\. RTX 3060: .* out of memory \(needed more than 11\.1 GB\)/,
  );

  // Run time: the newest 500 completed runs by GPU model, cold starts apart, the model's median and p90.
  const rt = plots.locator('[data-testid="runtime-plot"]');
  assert.match(
    await plots.locator('[data-testid="runtime-count"]').innerText(),
    /v1 · newest 500 of 1,242 completed runs among the farm's latest 5,000 attempts/,
  );
  assert.equal(await rt.locator('[data-testid="run-point"]').count(), 500);
  // The newest 500 are the Ada's four, the 3060's three and the 4090's last 493 warm runs.
  const strip4090 = rt.locator(`[data-testid="run-strip"][data-gpu="${RTX4090}"]`);
  const strip3060 = rt.locator(`[data-testid="run-strip"][data-gpu="${RTX3060}"]`);
  assert.equal(await strip4090.locator('[data-testid="run-point"][data-cold="false"]').count(), 493);
  assert.equal(await rt.locator(`[data-testid="run-strip"][data-gpu="${ADA}"] [data-testid="run-point"]`).count(), 4);
  assert.equal(await strip3060.locator('[data-testid="run-point"][data-cold="true"]').count(), 1);
  assert.equal(await strip3060.locator('[data-testid="run-point"][data-cold="false"]').count(), 2);
  const g4090 = runTimes.gpus.find((g) => g.gpu === RTX4090)!;
  const median = strip4090.locator('[data-testid="run-marker"][data-kind="median"]');
  const p90 = strip4090.locator('[data-testid="run-marker"][data-kind="p90"]');
  assert.equal(await median.getAttribute('data-ms'), String(g4090.p50Ms));
  assert.equal(await p90.getAttribute('data-ms'), String(g4090.p90Ms));
  assert.equal(
    await strip3060.locator('[data-testid="run-marker"]:not([data-kind="cold"])').count(),
    0,
    'no median or p90 below the threshold',
  );
  // Cold starts' median in their own lane, from every run in the window (the 4090's 200 s one is older than the newest 500).
  assert.equal(
    await strip4090.locator('[data-testid="run-marker"][data-kind="cold"]').getAttribute('data-ms'),
    '200000',
  );
  assert.equal(
    await strip3060.locator('[data-testid="run-marker"][data-kind="cold"]').getAttribute('data-ms'),
    '300000',
  );
  // The marks sit among the warm runs (80–99 s), the 300 s cold start far to their right.
  const warmXs = (
    await Promise.all((await strip4090.locator('[data-testid="run-point"]').all()).slice(0, 60).map(boxOf))
  ).map(midX);
  const xMedian = midX(await boxOf(median));
  assert.ok(Math.min(...warmXs) < xMedian && xMedian < Math.max(...warmXs), 'the median among the warm runs');
  assert.ok(midX(await boxOf(p90)) > xMedian, 'p90 right of the median');
  const cold = await boxOf(strip3060.locator('[data-testid="run-point"][data-cold="true"]'));
  assert.ok(midX(cold) > Math.max(...warmXs) + 50, 'the 300 s cold start far right of the warm runs');
  assert.ok(
    midY(cold) > midY(await boxOf(strip3060.locator('[data-testid="run-point"][data-cold="false"]').first())),
    'cold starts in their own, lower lane',
  );
  assert.match(
    await rt.locator('[data-testid="runtime-summary"]').innerText(),
    /RTX 3060: 2 warm runs, not enough for a median \(needs 3\); 1 cold start, median 5 m 00 s\. RTX 4090: median 1 m 29 s, p90 1 m 37 s of 1,234 warm runs; 1 cold start, median 3 m 20 s\./,
  );

  // Accessible: each plot is an image named by its title and described by its summary.
  for (const [plot, title] of [
    [vram, 'VRAM per run over time'],
    [rt, 'Run time by GPU model'],
  ] as const) {
    const img = plot.locator('svg[role="img"]');
    const labelled = ((await img.getAttribute('aria-labelledby')) ?? '').split(' ');
    assert.equal(labelled.length, 2);
    const words = await page.evaluate(
      `${JSON.stringify(labelled)}.map((id) => document.getElementById(id)?.textContent ?? '').join(' | ')`,
    );
    assert.match(String(words), new RegExp(`^${title} \\| .*${LONG} v1`));
  }
  await shootPlots(page, plots, 'template-plots');

  // A template never run: words, not an empty plot.
  await page.locator(`tr[data-template="${UNRUN}"] [data-testid="template-plots-toggle"]`).click();
  const none = page.locator(`[data-plots="${UNRUN}"]`);
  await none.locator('[data-testid="vram-empty"]').waitFor();
  assert.match(await none.locator('[data-testid="vram-empty"]').innerText(), /No measured runs yet/);
  assert.match(await none.locator('[data-testid="runtime-empty"]').innerText(), /No completed runs yet/);
  assert.equal(await none.locator('svg[role="img"]').count(), 0);
  assert.equal(await none.locator('[data-testid="vram-count"]').count(), 0, 'no "all 0 runs"');
  assert.equal(await page.locator(`[data-plots="${LONG}"]`).count(), 0, 'one template plotted at a time');
  await shootPlots(page, none, 'template-plots-empty');
  assert.deepEqual(errors, []);
});

/** Both studio sizes with the plots in view (no sideways scroll at either). */
async function shootPlots(page: Page, plots: Locator, name: string): Promise<void> {
  await shootAtStudioSizes(page, name, async () => {
    await plots.scrollIntoViewIfNeeded();
    // The plots draw at their box's width: let the resize reach them before the picture.
    await page.waitForFunction('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))');
  });
}
