/**
 * Issue 28 item 6 (`templates.history`): what the Templates view plots for a template — each
 * measured run's VRAM and each completed run's length per GPU model — comes through the contract
 * bounded to the newest 500 of each, oldest first, with how many there are in all, beside the same
 * learned figures `templates.vram` and `templates.runTimes` give; an artist may read it, and its
 * input is checked at the boundary like every method's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Caller } from '../../shared/people.js';
import { TEMPLATE_HISTORY_LIMIT } from '../../shared/template-history.js';
import { addVramSample } from '../../electron/engine/store/vram-sample-store.js';
import { engineFor, importText } from '../helpers/engine.js';
import { RTX3060, RTX4090, seedTemplateRuns, writeRun } from '../helpers/template-runs.js';

const ARTIST: Caller = { kind: 'person', name: 'mira', role: 'artist' };

test('templates.history: the newest 500 measured runs oldest first with the total, OOMs marked, beside the learned VRAM', async (ctx) => {
  const t = await engineFor(ctx);
  const { templateId } = await t.engine.call('templates.vram', { name: 'keyframe-img2img' });
  const t0 = t.clock.now();
  // 640 runs, one a minute, alternating GPU models; every 100th on the 3060 ran out of memory.
  const runs = 640;
  t.engine.db.transaction(() => {
    for (let i = 0; i < runs; i++) {
      const gpu = i % 2 === 0 ? RTX4090 : RTX3060;
      const oom = i % 100 === 1;
      addVramSample(t.engine.db, {
        attemptId: `a${i}`,
        templateId,
        gpu,
        pixels: 1024 * 1024,
        outcome: oom ? 'oom' : 'ok',
        needGb: oom ? 11.1 : 6 + (i % 7) * 0.1,
        addedGb: 5 + (i % 7) * 0.1,
        peakGb: 6.5,
        baselineGb: 0.5,
        otherGb: 0.3,
        warm: i % 3 !== 0,
        reads: 6,
        at: t0 + i * 60_000,
      });
    }
  });

  const h = await t.engine.call('templates.history', { name: 'keyframe-img2img' }, ARTIST);
  assert.equal(h.limit, TEMPLATE_HISTORY_LIMIT);
  assert.equal(h.vramTotal, runs);
  assert.equal(h.vramPoints.length, TEMPLATE_HISTORY_LIMIT);
  // The newest 500 (runs 140…639), oldest first.
  assert.deepEqual(
    h.vramPoints.map((p) => p.at),
    Array.from({ length: TEMPLATE_HISTORY_LIMIT }, (_, k) => t0 + (runs - TEMPLATE_HISTORY_LIMIT + k) * 60_000),
  );
  const first = h.vramPoints[0]!;
  assert.deepEqual(first, {
    at: t0 + 140 * 60_000,
    gpu: RTX4090,
    outcome: 'ok',
    needGb: 6 + 0,
    addedGb: 5,
    warm: true,
  });
  const ooms = h.vramPoints.filter((p) => p.outcome === 'oom');
  assert.deepEqual(
    ooms.map((p) => [p.at, p.gpu, p.needGb]),
    [201, 301, 401, 501, 601].map((i) => [t0 + i * 60_000, RTX3060, 11.1]),
  );
  // The lines are the table's own numbers.
  assert.deepEqual(h.vram, await t.engine.call('templates.vram', { name: 'keyframe-img2img' }));
  assert.deepEqual(h.runTimes, await t.engine.call('templates.runTimes', { name: 'keyframe-img2img' }));

  const other = await t.engine.call('templates.history', { name: 'motion-i2v' });
  assert.equal(other.vramTotal, 0);
  assert.deepEqual(
    [other.vramPoints, other.runPoints, other.runTotal],
    [[], [], 0],
    'a template never run has nothing to plot',
  );
});

test('templates.history: completed runs per GPU model as the run-time model counts them, cold starts marked, the newest 500 oldest first', async (ctx) => {
  const t = await engineFor(ctx);
  // gpu-01 (4090): a 100 s cold run, warm 30, 10, 50, 20, 40 s; gpu-02 (3060): a 200 s cold run, 60 and 70 s.
  await seedTemplateRuns(t);
  const h = await t.engine.call('templates.history', { name: 'keyframe-img2img' });
  assert.equal(h.runTotal, 9);
  assert.deepEqual(
    h.runPoints.map((p) => [p.gpu, p.ms / 1000, p.cold]),
    [
      [RTX4090, 100, true],
      ...[30, 10, 50, 20, 40].map((s) => [RTX4090, s, false]),
      [RTX3060, 200, true],
      [RTX3060, 60, false],
      [RTX3060, 70, false],
    ],
  );
  const at = h.runPoints.map((p) => p.at);
  assert.deepEqual(
    at,
    [...at].sort((a, b) => a - b),
    'oldest first',
  );

  // Beyond the bound: 520 more warm runs on the 4090; the newest 500 come back, the total says all.
  await importText(
    t.engine,
    'more.json',
    JSON.stringify({
      project: 'Moonfall',
      episode: 'ep102',
      shots: Array.from({ length: 520 }, (_, i) => ({
        id: `sh${String(i + 1).padStart(3, '0')}`,
        stage: 'keyframe',
        template: 'keyframe-img2img',
        parameters: { prompt: `q${i}` },
      })),
    }),
  );
  const fresh = t.engine.db
    .all<{ id: string }>("SELECT id FROM jobs WHERE state = 'queued' ORDER BY shot_id")
    .map((r) => r.id);
  assert.equal(fresh.length, 520);
  t.engine.db.transaction(() => {
    for (const [i, id] of fresh.entries()) writeRun(t.engine.db, t.clock, id, 'gpu-01', RTX4090, 0, 1_000 + i);
  });
  const big = await t.engine.call('templates.history', { name: 'keyframe-img2img' });
  assert.equal(big.runTotal, 9 + 520);
  assert.equal(big.runPoints.length, TEMPLATE_HISTORY_LIMIT);
  assert.deepEqual(
    big.runPoints.map((p) => p.ms),
    Array.from({ length: TEMPLATE_HISTORY_LIMIT }, (_, k) => 1_000 + 20 + k),
    'the newest 500, oldest first',
  );
  assert.equal(
    big.runTimes.gpus.find((g) => g.gpu === RTX4090)?.runs,
    5 + 520,
    'the figures are of every run, not only those drawn',
  );
});

test('templates.history is checked at the boundary: a name is required, nothing else is taken, an unknown template is named', async (ctx) => {
  const t = await engineFor(ctx);
  await assert.rejects(t.engine.call('templates.history', {}), /Invalid input for templates\.history/);
  await assert.rejects(t.engine.call('templates.history', { name: '' }), /Invalid input for templates\.history/);
  await assert.rejects(
    t.engine.call('templates.history', { name: 'keyframe-img2img', limit: 100_000 }),
    /Invalid input for templates\.history/,
  );
  await assert.rejects(t.engine.call('templates.history', { name: 'nope' }), /No template named nope/);
});
