/**
 * store/bulk.ts: many rows per statement from a fixed set of statement texts, every row once and in
 * order, and never more parameters in one statement than the module allows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inChunks, inPadded, paramList, valueRows } from '../../electron/engine/store/bulk.js';
import { NEW_JOB_COLUMNS, newJobValues, type NewJob } from '../../electron/engine/store/job-store.js';

test('rows go in chunks of 256, then 16, then one, each row once and in order', () => {
  const items = Array.from({ length: 256 * 2 + 16 * 3 + 5 }, (_, i) => i);
  const sizes: number[] = [];
  const seen: number[] = [];
  const texts = new Set<string>();
  inChunks(
    items,
    3,
    (n) => `rows ${n}`,
    (chunk, text) => {
      sizes.push(chunk.length);
      texts.add(text);
      assert.equal(text, `rows ${chunk.length}`);
      seen.push(...chunk);
    },
  );
  assert.deepEqual(sizes, [256, 256, 16, 16, 16, 1, 1, 1, 1, 1]);
  assert.deepEqual(seen, items);
  assert.deepEqual([...texts], ['rows 256', 'rows 16', 'rows 1']);
});

test('a wide row makes the chunks smaller: no statement passes 16,384 parameters', () => {
  const sizes: number[] = [];
  inChunks(
    Array.from({ length: 1000 }, (_, i) => i),
    100,
    (n) => String(n),
    (chunk) => void sizes.push(chunk.length),
  );
  assert.ok(sizes.every((n) => n * 100 <= 16_384));
  assert.equal(
    sizes.reduce((a, b) => a + b, 0),
    1000,
  );
});

test('nothing to write calls nothing', () => {
  inChunks(
    [],
    5,
    () => assert.fail('no text'),
    () => assert.fail('no write'),
  );
});

test('a padded lookup repeats its last key so every chunk has the one size', () => {
  const chunks: string[][] = [];
  inPadded(['a', 'b', 'c', 'd', 'e'], 2, (c) => void chunks.push([...c]));
  assert.deepEqual(chunks, [
    ['a', 'b'],
    ['c', 'd'],
    ['e', 'e'],
  ]);
});

test('the placeholder lists have the asked shape', () => {
  assert.equal(valueRows(3, 2), '(?, ?, ?), (?, ?, ?)');
  assert.equal(paramList(3), '?, ?, ?');
});

test("a new job's bulk values follow the insert's columns: each job column in order, then its time three times", () => {
  // Every column a value of its own, so a value in the wrong place shows as the wrong name.
  const job = Object.fromEntries(NEW_JOB_COLUMNS.map((c) => [c, `value of ${c}`])) as unknown as NewJob;
  job.now = 42;
  assert.deepEqual(newJobValues(job), [...NEW_JOB_COLUMNS.map((c) => `value of ${c}`), 42, 42, 42]);
});
