/** The learned VRAM need (scheduler/vram-need.ts), table-tested: pure functions over measured runs. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobVram, needGbOn, percentile, vramOn, type LearnRules } from '../../electron/engine/scheduler/vram-need.js';
import type { LearnedRow } from '../../electron/engine/store/vram-sample-store.js';
import { fitsNow, couldFit, type JobSnapshot } from '../../electron/engine/scheduler/policy.js';
import { describeVramChoice } from '../../shared/vram-need.js';
import { jobPixels } from '../../electron/engine/templates/job-size.js';
import { idleGpu } from '../helpers/gpu-snapshot.js';

const RULES: LearnRules = { learnAfter: 5, marginPct: 10 };
const RTX4090 = 'NVIDIA GeForce RTX 4090';
const RTX3060 = 'NVIDIA GeForce RTX 3060';
const PX = 1024 * 1024;

const ok = (needGb: number, gpu = RTX4090, pixels = PX): LearnedRow => ({ gpu, pixels, outcome: 'ok', needGb });
const oom = (needGb: number, gpu = RTX3060, pixels = PX): LearnedRow => ({ gpu, pixels, outcome: 'oom', needGb });
const runs = (n: number, gb = 6.5, gpu = RTX4090) => Array.from({ length: n }, (_, i) => ok(gb + (i % 3) * 0.05, gpu));

test('the declared number is used until vram_learn_after good runs, then the p95 plus the margin', () => {
  const four = jobVram(10, PX, runs(4), RULES, 'auto');
  assert.deepEqual(vramOn(four, RTX4090), { gb: 10, source: 'declared', samples: 4, ooms: 0 });
  const five = vramOn(jobVram(10, PX, runs(5), RULES, 'auto'), RTX4090);
  assert.equal(five.source, 'learned');
  assert.equal(five.samples, 5);
  assert.ok(Math.abs(five.gb - 6.6 * 1.1) < 1e-9, `p95 6.6 + 10 %: ${five.gb}`);
});

test('a GPU model with no runs keeps the declared number; learning is per GPU model', () => {
  const v = jobVram(10, PX, runs(8), RULES, 'auto');
  assert.equal(vramOn(v, RTX3060).gb, 10);
  assert.equal(vramOn(v, null).gb, 10);
});

test('pinning declared wins over any learned number and over OOM floors; pinning learned needs one run', () => {
  const rows = [...runs(8), oom(11.1)];
  assert.deepEqual(vramOn(jobVram(10, PX, rows, RULES, 'declared'), RTX4090), {
    gb: 10,
    source: 'declared',
    samples: 0,
    ooms: 0,
  });
  const one = vramOn(jobVram(10, PX, [ok(6)], RULES, 'learned'), RTX4090);
  assert.equal(one.source, 'learned');
  assert.ok(Math.abs(one.gb - 6.6) < 1e-9);
});

test('an out-of-memory run raises the need above what failed: on its GPU model, and on every GPU model not learned yet', () => {
  const rows = [...runs(8, 6.5), oom(11.1)];
  const v = jobVram(10, PX, rows, RULES, 'auto');
  // 11.1 needed-more-than + 10 % above the declared 10 on the 3060 and on GPU models never measured…
  assert.ok(Math.abs(vramOn(v, RTX3060).gb - 12.21) < 1e-9);
  assert.equal(vramOn(v, RTX3060).ooms, 1);
  assert.ok(Math.abs(vramOn(v, 'NVIDIA A4000').gb - 12.21) < 1e-9);
  // …but the 4090's own runs say what it needs there: what was measured beats what is inferred.
  assert.ok(vramOn(v, RTX4090).gb < 8);
  const own = jobVram(10, PX, [...runs(8, 6.5), oom(11.1, RTX4090)], RULES, 'auto');
  assert.ok(Math.abs(vramOn(own, RTX4090).gb - 12.21) < 1e-9, 'its own OOM raises a learned number');
  assert.equal(vramOn(own, RTX4090).ooms, 1);
  const twelve = { ...idleGpu('g12'), totalVramBytes: 12 * 1024 ** 3, gpuName: RTX3060 };
  const job: JobSnapshot = {
    id: 'j',
    priority: 0,
    stage: 'keyframe',
    vramGb: 10,
    tags: [],
    checkpoint: null,
    previousInstanceId: null,
    oomOn: null,
    vram: v,
  };
  assert.equal(couldFit(job, twelve), false, 'a 12 GB GPU no longer fits');
  assert.equal(fitsNow(job, { ...idleGpu('g24'), gpuName: RTX4090 }), true, 'a 24 GB GPU does');
});

test('sizes: a bucket with too few runs borrows the smallest larger bucket that has enough; never a smaller one', () => {
  const big = Array.from({ length: 5 }, () => ok(9, RTX4090, 4 * PX));
  const small = Array.from({ length: 5 }, () => ok(5, RTX4090, PX / 4));
  const v = jobVram(10, PX, [...big, ...small], RULES, 'auto');
  assert.ok(Math.abs(vramOn(v, RTX4090).gb - 9.9) < 1e-9, 'the 4 MP bucket, not the 0.25 MP one');
  const larger = jobVram(10, 8 * PX, [...big, ...small], RULES, 'auto');
  assert.equal(vramOn(larger, RTX4090).source, 'declared', 'no bucket at least that large');
});

test("a workstation's stage override beats learned and declared", () => {
  const v = jobVram(10, PX, runs(8), RULES, 'auto');
  assert.equal(needGbOn({ stage: 'keyframe', vramGb: 10, vram: v }, { vramOverrides: { keyframe: 14 } }), 14);
  assert.ok(needGbOn({ stage: 'keyframe', vramGb: 10, vram: v }, { vramOverrides: {}, gpuName: RTX4090 }) < 8);
});

test('jobs why words: learned from N runs on a GPU model, with the declared number beside it', () => {
  const text = describeVramChoice({ gb: 7.42, source: 'learned', samples: 23, ooms: 0 }, RTX4090, 10);
  assert.equal(text, 'needs 7.4 GB learned from 23 runs on RTX 4090; declared 10');
  assert.equal(
    describeVramChoice({ gb: 10, source: 'declared', samples: 2, ooms: 0 }, RTX4090, 10),
    'needs 10 GB on RTX 4090 (declared; 2 runs measured)',
  );
});

test('percentile is nearest-rank; a job size is width × height × batch × frames after its parameters', () => {
  assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95), 10);
  assert.equal(percentile([3, 1, 2], 50), 2);
  const wf = {
    '5': { class_type: 'EmptyLatentImage', inputs: { width: 64, height: 64, batch_size: 2 } },
    '3': { class_type: 'SVD_img2vid_Conditioning', inputs: { width: 1024, height: 576, video_frames: 25 } },
  };
  assert.equal(jobPixels(wf, { w: '5.width' }, '{"w": 512}'), 1024 * 576 * 25);
  assert.equal(jobPixels({ '5': wf['5'] }, { w: '5.width' }, '{"w": 512}'), 512 * 64 * 2);
  assert.equal(jobPixels({ '1': { class_type: 'LoadImage', inputs: { image: 'a.png' } } }, {}, '{}'), 0);
});

test("a template's size nodes are found once, and each job's own parameters still decide its size", () => {
  const wf = {
    '5': { class_type: 'EmptyLatentImage', inputs: { width: 64, height: 64, batch_size: 1 } },
    '7': { class_type: 'EmptyHunyuanLatentVideo', inputs: { width: 32, height: 32, length: 9 } },
    '9': { class_type: 'KSampler', inputs: { seed: 1 } },
  };
  const byWidth = { w: '5.width', n: '7.length', b: '5.batch_size' };
  // The same template again and again, as the keeper asks it of a queue: the plan is reused.
  assert.equal(jobPixels(wf, byWidth, '{"w": 2048}'), 2048 * 64);
  assert.equal(jobPixels(wf, byWidth, '{"w": "4096", "b": 2}'), 4096 * 64 * 2);
  assert.equal(jobPixels(wf, byWidth, '{"n": 1000}'), 32 * 32 * 1000);
  assert.equal(jobPixels(wf, byWidth, '{}'), 32 * 32 * 9, "the workflow's own values without parameters");
  assert.equal(
    jobPixels(wf, byWidth, '{"w": "wide", "n": -3}'),
    32 * 32,
    "a parameter that is not a size leaves its input without one (the latent's width, the video's frames)",
  );
  // The same workflow with other parameters is planned again.
  assert.equal(jobPixels(wf, { h: '7.height' }, '{"h": 1080, "w": 2048}'), 32 * 1080 * 9);
  // Sizes no parameter touches: the shot's parameters are not read (a broken one changes nothing).
  assert.equal(jobPixels(wf, { s: '9.seed' }, 'not json'), 32 * 32 * 9);
  // A node given a size only by a parameter.
  const given = { '4': { class_type: 'EmptySD3LatentImage', inputs: { height: 512 } } };
  assert.equal(jobPixels(given, { w: '4.width' }, '{"w": 768}'), 768 * 512);
  assert.equal(jobPixels(given, { w: '4.width' }, '{}'), 0);
});
