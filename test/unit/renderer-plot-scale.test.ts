/**
 * The Templates view's plots read their ticks from renderer/features/settings/plots/plot-scale.ts:
 * GB ticks at 1, 2 or 5 × 10^k covering the largest value, run-length ticks on round seconds and
 * minutes with words a person reads ("1 m 30 s"), wall-clock ticks on local boundaries, never more
 * than asked for, and one colour per GPU model whichever plot asks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  durationTick,
  durationTicks,
  gpuColours,
  niceTicks,
  timeTicks,
} from '../../renderer/features/settings/plots/plot-scale.js';

test('GB ticks are round steps from 0 that cover the largest value', () => {
  assert.deepEqual(niceTicks(13.3, 5), [0, 5, 10, 15]);
  assert.deepEqual(niceTicks(7.2, 5), [0, 2, 4, 6, 8]);
  assert.deepEqual(niceTicks(0.8, 4), [0, 0.2, 0.4, 0.6, 0.8]);
  assert.deepEqual(niceTicks(0, 5), [0, 0.2, 0.4, 0.6, 0.8, 1], 'nothing measured yet still has an axis');
});

test('run-length ticks fall on round seconds or minutes and read as a person says them', () => {
  assert.deepEqual(durationTicks(330_000, 6), [0, 60_000, 120_000, 180_000, 240_000, 300_000, 360_000]);
  assert.deepEqual(durationTicks(9_000, 5), [0, 2_000, 4_000, 6_000, 8_000, 10_000]);
  assert.deepEqual([45_000, 90_000, 120_000, 5_400_000].map(durationTick), ['45 s', '1 m 30 s', '2 m', '1 h 30 m']);
});

test('wall-clock ticks sit on local boundaries within the range, at most as many as asked (+ the ends), the day said where it changes', () => {
  const at = (h: number, m = 0, day = 4) => new Date(2026, 11, day, h, m).getTime();
  const hours = timeTicks(at(13, 10), at(17, 50), 6);
  assert.deepEqual(
    hours.map((t) => t.at),
    [at(14), at(15), at(16), at(17)],
  );
  for (const t of hours) assert.match(t.words, /^1[4-7]:00$/);
  const overnight = timeTicks(at(20), at(4, 0, 5), 3);
  assert.deepEqual(
    overnight.map((t) => t.at),
    [at(21), at(0, 0, 5), at(3, 0, 5)],
  );
  assert.match(overnight[1]!.words, /Dec 5.*00:00/, 'the new day named at its first tick');
  const weeks = timeTicks(at(0, 0, 1), at(0, 0, 29), 5);
  assert.ok(weeks.length <= 5 && weeks.every((t) => !/:/.test(t.words)), 'days, not hours, over weeks');
});

test('each GPU model has one colour in both plots, by its sorted name', () => {
  const a = gpuColours(['NVIDIA GeForce RTX 4090', 'NVIDIA GeForce RTX 3060']);
  const b = gpuColours(['NVIDIA GeForce RTX 3060', 'NVIDIA GeForce RTX 4090', 'NVIDIA GeForce RTX 3060']);
  assert.deepEqual([...a], [...b]);
  assert.notEqual(a.get('NVIDIA GeForce RTX 4090'), a.get('NVIDIA GeForce RTX 3060'));
});
