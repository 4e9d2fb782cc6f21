/**
 * The queue order a pass looks at (candidates.ts preferWarm): within a batch that ties on the
 * dispatch order, one job per open place holding a model goes first — matched place by place, so
 * two GPUs freeing together, one holding A and one B, each get a job of their own model.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { preferWarm } from '../../electron/engine/scheduler/candidates.js';
import type { JobRow } from '../../electron/engine/store/job-rows.js';

/** Only the fields preferWarm reads: the dispatch order and, through the lookup below, the model. */
const row = (id: string, o: Partial<JobRow> = {}): JobRow =>
  ({ id, priority: 0, rank: 0, enqueued_at: 1000, ...o }) as JobRow;
const ckpt = (j: JobRow): string | null => (j.id.startsWith('-') ? null : (j.id[0] ?? null));
const order = (rows: JobRow[], warm: string[], lookahead = 16): string[] =>
  [...preferWarm(rows, warm, lookahead, ckpt)].map((j) => j.id);

test('two GPUs freeing together, one holding A and one B: the first job of each model goes first', () => {
  const rows = ['B1', 'B2', 'B3', 'A1', 'B4'].map((id) => row(id));
  // A set of warm models ({A, B}) would keep B1 B2 B3 first: B2 would go to the GPU holding A.
  assert.deepEqual(order(rows, ['A', 'B']), ['A1', 'B1', 'B2', 'B3', 'B4']);
});

test('two free GPUs holding the same model get the first two jobs of it', () => {
  const rows = ['B1', 'A1', 'B2', 'A2', 'A3'].map((id) => row(id));
  assert.deepEqual(order(rows, ['A', 'A']), ['A1', 'A2', 'B1', 'B2', 'A3']);
});

test('a free slot is matched before a waiting place: its job starts now', () => {
  const rows = ['B1', 'A1'].map((id) => row(id));
  assert.deepEqual(order(rows, ['A', 'B']), ['A1', 'B1']);
  assert.deepEqual(order(rows, ['B', 'A']), ['B1', 'A1']);
});

test('a model no job of the batch needs leaves the order alone; jobs without a model stay in place', () => {
  const rows = ['-x', 'B1', '-y', 'B2'].map((id) => row(id));
  assert.deepEqual(order(rows, ['C']), ['-x', 'B1', '-y', 'B2']);
  assert.deepEqual(order(rows, []), ['-x', 'B1', '-y', 'B2']);
});

test('the order between runs of different priority is never changed', () => {
  const rows = [row('B1', { priority: 5 }), row('A1'), row('B2')];
  assert.deepEqual(order(rows, ['A']), ['B1', 'A1', 'B2']);
});

test('the look-ahead is bounded: a warm job past it is not pulled forward', () => {
  const rows = ['B1', 'B2', 'B3', 'A1'].map((id) => row(id));
  assert.deepEqual(order(rows, ['A'], 3), ['B1', 'B2', 'B3', 'A1']);
});
