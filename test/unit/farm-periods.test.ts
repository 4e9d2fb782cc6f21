/** The Timeline's paused/stopped stretches folded from the farm's recorded state changes (queries/farm-periods.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { periodsOf } from '../../electron/engine/queries/farm-periods.js';
import type { FarmStateChange } from '../../electron/engine/store/farm-state-history.js';

const c = (state: FarmStateChange['state'], at: number, actor = 'ana'): FarmStateChange => ({ state, actor, at });

test('a pause then a resume is one closed paused stretch; a running farm has none', () => {
  assert.deepEqual(periodsOf(null, [c('paused', 100), c('running', 200)], 0, 1000), [
    { state: 'paused', from: 100, to: 200, by: 'ana' },
  ]);
  assert.deepEqual(periodsOf(c('running', 5), [], 0, 1000), []);
});

test('a pause still in force at the window start comes from the change before it, and stays open', () => {
  assert.deepEqual(periodsOf(c('paused', 50, 'cli'), [], 100, 1000), [
    { state: 'paused', from: 50, to: null, by: 'cli' },
  ]);
});

test('a pause turned into a stop is a stretch of each; a repeated pause keeps the first', () => {
  assert.deepEqual(
    periodsOf(null, [c('paused', 100), c('paused', 150, 'bo'), c('stopped', 300, 'bo'), c('running', 400)], 0, 1000),
    [
      { state: 'paused', from: 100, to: 300, by: 'ana' },
      { state: 'stopped', from: 300, to: 400, by: 'bo' },
    ],
  );
});

test('stretches ending before the window are left out', () => {
  assert.deepEqual(periodsOf(c('paused', 10), [c('running', 500), c('paused', 900)], 600, 1000), [
    { state: 'paused', from: 900, to: null, by: 'ana' },
  ]);
});

test('a stretch the window cuts keeps its true end (the change after the window); one starting after it is left out', () => {
  assert.deepEqual(periodsOf(c('paused', 10), [c('running', 500), c('stopped', 900)], 100, 200), [
    { state: 'paused', from: 10, to: 500, by: 'ana' },
  ]);
});
