import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bucketOf } from '../../electron/engine/forecast/run-buckets.js';
import { quantile, RunModel, type RunSample } from '../../electron/engine/forecast/run-model.js';

const runs = (templateId: number, gpuName: string, bucket: string, ms: number[], cold = false): RunSample[] =>
  ms.map((x) => ({ templateId, gpuName, bucket, ms: x, cold }));

const B1 = bucketOf('{"width":1024,"height":1024}');
const B4 = bucketOf('{"width":2048,"height":2048}');

test('the run-time model gives the median and p90 per template version, GPU model and size bucket', () => {
  const m = new RunModel([
    ...runs(
      1,
      'RTX 4090',
      B1,
      [10, 11, 12, 13, 14, 15, 16, 17, 18, 100].map((s) => s * 1000),
    ),
    ...runs(1, 'RTX 4090', B4, [40_000, 42_000, 44_000, 46_000, 48_000]),
    ...runs(1, 'RTX 3060', B1, [30_000, 31_000, 32_000]),
    ...runs(2, 'RTX 4090', B1, [5_000, 5_000, 5_000]),
  ]);
  const f = m.figure(1, 'RTX 4090', B1);
  assert.equal(f?.source, 'exact');
  assert.equal(f?.p50Ms, 14_500, 'median of ten runs: the mean of the middle two');
  assert.equal(f?.p90Ms, Math.round(18_000 + (100_000 - 18_000) * 0.1), 'p90 by linear interpolation');
  assert.equal(f?.runs, 10);
  assert.equal(f?.meanMs, 22_600, 'the mean, which a queue of such runs adds up by');
  assert.equal(m.figure(1, 'RTX 4090', B4)?.p50Ms, 44_000, 'the 2048² bucket is its own key');
  assert.equal(m.figure(1, 'RTX 3060', B1)?.p50Ms, 31_000, 'another GPU model is its own key');
  assert.equal(m.figure(2, 'RTX 4090', B1)?.p50Ms, 5_000, 'another template version is its own key');
});

test('cold starts (a model load) are counted apart: they move neither the median nor the p90 of warm runs', () => {
  const m = new RunModel([
    ...runs(1, 'RTX 4090', B1, [10_000, 10_000, 10_000, 10_000]),
    ...runs(1, 'RTX 4090', B1, [40_000, 44_000], true),
  ]);
  const f = m.figure(1, 'RTX 4090', B1);
  assert.equal(f?.p50Ms, 10_000);
  assert.equal(f?.p90Ms, 10_000);
  assert.equal(f?.runs, 4);
  assert.equal(f?.coldMs, 42_000);
  assert.equal(f?.coldRuns, 2);
});

test('a key with too few runs borrows: same GPU at any size, then other GPU models at this model’s pace', () => {
  const m = new RunModel([
    ...runs(1, 'fast', B1, [10_000, 10_000, 10_000]),
    ...runs(1, 'slow', B1, [30_000, 30_000, 30_000]),
    ...runs(2, 'fast', B1, [4_000, 4_000, 4_000]),
    ...runs(2, 'slow', B1, [12_000, 12_000, 12_000]),
    ...runs(3, 'fast', B1, [8_000, 8_000, 8_000]),
  ]);
  assert.equal(m.figure(1, 'fast', B4)?.source, 'gpu', 'no 2048² run on this GPU: its runs at any size');
  const scaled = m.figure(3, 'slow', B1);
  assert.equal(scaled?.source, 'scaled', 'never run on the slow model: the fast runs at the slow pace');
  // The slow model takes 1.5× the average of (fast, slow); the fast 0.5×: template 3's 8 s on the fast → 24 s slow.
  assert.equal(m.speedOf('slow'), 1.5);
  assert.equal(scaled?.p50Ms, 24_000);
  assert.equal(m.figure(9, 'fast', B1), null, 'a template never run anywhere: no figure');
});

test('a GPU model with only cold runs of a template goes by them, not by another model’s warm runs at the average pace', () => {
  // At 10 % of an episode the slow GPUs have each run their first (cold) job and nothing else;
  // the fast ones have warm runs. The slow model's figure used to be the fast runs unscaled.
  const m = new RunModel([
    ...runs(1, 'fast', B1, [350], true),
    ...runs(1, 'fast', B1, [300, 310, 320, 330, 340, 300]),
    ...runs(1, 'slow', B1, [770, 790], true),
  ]);
  const f = m.figure(1, 'slow', B1);
  assert.equal(f?.source, 'scaled', 'the fast runs, at the pace the cold runs of both show');
  // Cold runs: 780 on the slow, 350 on the fast → 2.23 × the fast warm runs (median 315) = 702.
  assert.equal(f?.p50Ms, Math.round(315 * (780 / 350)));
  assert.equal(f?.coldMs, 780, 'its own model load, not a scaled one');
  const only = new RunModel([...runs(1, 'fast', B1, [300, 310, 320]), ...runs(1, 'slow', B1, [770, 790], true)]);
  assert.equal(only.figure(1, 'slow', B1)?.p50Ms, 780, 'no cold run on the fast model to compare: its own cold runs');
  const elsewhere = new RunModel([
    ...runs(1, 'fast', B1, [300, 300, 300]),
    ...runs(1, 'slow', B1, [780], true),
    ...runs(2, 'fast', B1, [1_000, 1_000, 1_000]),
    ...runs(2, 'slow', B1, [3_000, 3_000, 3_000]),
  ]);
  assert.equal(
    elsewhere.figure(1, 'slow', B1)?.p50Ms,
    900,
    'the models’ speeds over another template win over one cold run: 3 × the fast 300',
  );
});

test('size buckets: near sizes share one, four times the pixels, another batch or frame count do not', () => {
  assert.equal(bucketOf('{"width":1024,"height":576}'), bucketOf('{"width":1024,"height":640}'));
  assert.notEqual(bucketOf('{"width":1024,"height":1024}'), bucketOf('{"width":2048,"height":2048}'));
  assert.notEqual(bucketOf('{"batch":1}'), bucketOf('{"batch":4}'));
  assert.notEqual(bucketOf('{"frames":25}'), bucketOf('{"frames":100}'));
  assert.equal(bucketOf('not json'), bucketOf('{}'), 'unreadable parameters: the default bucket');
  assert.equal(quantile([], 0.5), null);
});
