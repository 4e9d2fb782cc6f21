/**
 * Issue 28 item 6, in Chromium: the Templates panel shows a template's declared VRAM beside what the
 * farm learned per GPU model, with the run counts, and which number admission uses, and its learned
 * run time per GPU model (warm median and p90, cold starts apart, "not enough runs yet");
 * an operator pins it there (the engine then uses the declared number), an artist sees the pin
 * disabled saying why. Long template names and studio-sized GPU names at 1280×720 and 1440×900.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startServer } from '../../electron/server/server.js';
import { ManualClock } from '../../electron/engine/clock.js';
import { addVramSample } from '../../electron/engine/store/vram-sample-store.js';
import { RTX3060, RTX4090, writeRun } from '../helpers/template-runs.js';
import { startFarm } from '../helpers/farm.js';
import { peoplePages } from './support/people.js';
import { shootAtStudioSizes, studioSuite } from './support/studio.js';

const suite = studioSuite();
const LONG = 'moonfall-ep101-keyframe-sdxl-img2img-with-layout-plate-and-detail-lora-v2';

/** Screenshots at both studio sizes (no sideways scroll at either), the Templates panel in view. */
async function shoot(page: Page, name: string): Promise<void> {
  await shootAtStudioSizes(page, name, () => page.locator('[data-testid="templates-panel"]').scrollIntoViewIfNeeded());
}

test('the Templates panel shows declared beside learned VRAM and the learned run time per GPU model with run counts; an operator pins it, an artist cannot', {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await startFarm({ instances: [], start: false, templates: [] });
  ctx.after(() => farm.close());
  const t = await farm.engine.call('templates.add', {
    content: JSON.stringify({
      name: LONG,
      stage: 'keyframe',
      vram_gb: 10,
      parameters: { prompt: '6.text' },
      workflow: {
        '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
        '5': { class_type: 'EmptyLatentImage', inputs: { width: 1024, height: 1024, batch_size: 1 } },
        '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a frame', clip: ['4', 1] } },
      },
    }),
    fileName: 'long.json',
  });
  // Runs as the sampler stores them (the measuring itself: integration/vram-learning.test.ts).
  const sample = (i: number, gpu: string, outcome: 'ok' | 'oom', needGb: number) =>
    addVramSample(farm.engine.db, {
      attemptId: `a${gpu}${i}`,
      templateId: t.id,
      gpu,
      pixels: 1024 * 1024,
      outcome,
      needGb,
      addedGb: needGb,
      peakGb: needGb,
      baselineGb: 0,
      otherGb: 0.4,
      warm: true,
      reads: 8,
      at: Date.now(),
    });
  for (let i = 0; i < 23; i++) sample(i, 'NVIDIA GeForce RTX 4090', 'ok', 6.4 + (i % 4) * 0.05);
  sample(0, 'NVIDIA GeForce RTX 3060', 'oom', 11.1);
  // Completed runs as the scheduler and the attempt runner write them (run-time model): on the 4090
  // one cold run (the model load) and 1,234 warm ones of 80–99 s; on the 3060 two warm runs, fewer
  // than the model needs.
  const runs = 1 + 1_234 + 1 + 2;
  const shots = Array.from({ length: runs }, (_, i) => ({ id: `sh${String(i).padStart(5, '0')}`, template: LONG }));
  const ids = await farm.importJobs(shots, 'moonfall', 'ep101');
  const clock = new ManualClock(Date.now() - 48 * 3_600_000);
  farm.engine.db.transaction(() => {
    let n = 0;
    writeRun(farm.engine.db, clock, ids[n++]!, 'render-01', RTX4090, 0, 200_000);
    for (let i = 0; i < 1_234; i++)
      writeRun(farm.engine.db, clock, ids[n++]!, 'render-01', RTX4090, 0, 80_000 + (i % 20) * 1_000);
    writeRun(farm.engine.db, clock, ids[n++]!, 'render-02', RTX3060, 0, 300_000);
    for (let i = 0; i < 2; i++) writeRun(farm.engine.db, clock, ids[n++]!, 'render-02', RTX3060, 0, 150_000);
  });
  const server = await startServer({ engine: farm.engine, staticDir: suite.built.dir });
  ctx.after(() => server.close());
  const open = peoplePages(ctx, suite.browser, farm.engine, server.url);

  const operator = await open('otto', 'operator', 'settings');
  const { page } = operator;
  const cell = page.locator(`[data-template="${LONG}"] [data-testid="template-vram"]`);
  const rtx4090 = cell.locator('[data-gpu="NVIDIA GeForce RTX 4090"]');
  await rtx4090.waitFor();
  assert.match(await cell.innerText(), /10 GB declared/);
  assert.match(await rtx4090.innerText(), /RTX 4090\s+6\.6 GB learned · 23 runs\s+uses 7\.2 GB \(learned\)/);
  assert.match(
    await cell.locator('[data-gpu="NVIDIA GeForce RTX 3060"]').innerText(),
    /0 runs · 1 OOM > 11\.1 GB\s+uses 12\.2 GB \(declared\)/,
  );
  // Run time beside it, per GPU model: warm median and p90, the cold start apart, none below the threshold.
  const runTime = page.locator(`[data-template="${LONG}"] [data-testid="template-runtime"]`);
  await runTime.locator(`[data-gpu="${RTX4090}"]`).waitFor();
  assert.match(
    await runTime.locator(`[data-gpu="${RTX4090}"]`).innerText(),
    /RTX 4090\s+median 1 m 29 s · p90 1 m 37 s of 1,234 runs\s+cold start 3 m 20 s \(1 run\)/,
  );
  assert.match(
    await runTime.locator(`[data-gpu="${RTX3060}"]`).innerText(),
    /RTX 3060\s+not enough runs yet \(2 runs; needs 3\)\s+cold start 5 m 00 s \(1 run\)/,
  );
  await shoot(page, 'templates-vram-operator');

  await cell.locator('[data-testid="template-vram-pin"]').selectOption('declared');
  await rtx4090.locator('[data-testid="template-vram-use"]', { hasText: 'uses 10 GB (declared)' }).waitFor();
  const v = await farm.engine.call('templates.vram', { name: LONG });
  assert.equal(v.pin, 'declared');

  const artist = await open('mira', 'artist', 'settings');
  const pin = artist.page.locator(`[data-template="${LONG}"] [data-testid="template-vram-pin"]`);
  await pin.waitFor();
  assert.equal(await pin.isDisabled(), true);
  assert.equal(
    await pin.getAttribute('title'),
    'Your role (artist) cannot register templates: operators and admins can.',
  );
  await shoot(artist.page, 'templates-vram-artist');
  assert.deepEqual([...operator.errors, ...artist.errors], []);
});
