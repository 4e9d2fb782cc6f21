/**
 * The queue order a pass looks at (candidates.ts preferWarm): within a batch that ties on the
 * dispatch order, one job per open place holding a model goes first — matched place by place, so
 * two GPUs freeing together, one holding A and one B, each get a job of their own model. And what
 * it costs: the candidates are read lazily, a small page first, and a window whose places all have
 * their job is given out without reading the rest of it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { candidates, FIRST_PAGE, preferWarm } from '../../electron/engine/scheduler/candidates.js';
import type { Db } from '../../electron/engine/store/database.js';
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

/** The order reading each whole window first gives (the rule above, without the early give-out). */
function wholeWindows(rows: JobRow[], warm: string[], lookahead: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length; ) {
    const head = rows[i] as JobRow;
    let end = i;
    while (
      end < rows.length &&
      end - i < lookahead &&
      (rows[end] as JobRow).priority === head.priority &&
      (rows[end] as JobRow).rank === head.rank
    )
      end++;
    const group = rows.slice(i, end);
    const ahead: JobRow[] = [];
    for (const c of warm) {
      const match = group.find((j) => ckpt(j) === c && !ahead.includes(j));
      if (match) ahead.push(match);
    }
    out.push(...ahead.map((j) => j.id), ...group.filter((j) => !ahead.includes(j)).map((j) => j.id));
    i = end;
  }
  return out;
}

test('giving a window out once its places have their jobs orders the queue as reading the whole window does', () => {
  let seed = 7;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let round = 0; round < 500; round++) {
    const rows = Array.from({ length: 1 + rand(40) }, (_, i) =>
      row(`${'ABC-'[rand(4)]}${i}`, { priority: rand(3) === 0 ? 1 : 0, rank: rand(5) === 0 ? 1 : 0 }),
    );
    const warm = Array.from({ length: rand(4) }, () => 'ABCD'[rand(4)] as string);
    const lookahead = 1 + rand(8);
    assert.deepEqual(order(rows, warm, lookahead), wholeWindows(rows, warm, lookahead), `round ${round}`);
  }
});

test('a pass whose open place finds its model in the first rows reads no further', () => {
  let read = 0;
  function* source(): Generator<JobRow> {
    for (let i = 0; i < 100; i++) {
      read++;
      yield row(`${i === 1 ? 'A' : 'B'}${i}`);
    }
  }
  const queue = preferWarm(source(), ['A'], 16, ckpt);
  assert.equal(queue.next().value?.id, 'A1');
  assert.equal(read, 2, 'two rows read, not the 16 of the window');
});

test('the candidates are read a small page first, then pages twice as large up to a few per open place', () => {
  const limits: number[] = [];
  // Only the page reads: an endless queue of identical rows, and which LIMIT each read asked for.
  const db = {
    all: (_sql: string, limit: number) => {
      limits.push(limit);
      return Array.from({ length: limit }, (_, i) => row(`B${i}`));
    },
  } as unknown as Db;
  const take = (n: number, it: Iterator<JobRow>): void => {
    for (let i = 0; i < n; i++) it.next();
  };
  take(2, candidates(db, 1, 1000));
  assert.deepEqual(limits, [FIRST_PAGE], 'one open place: one page of four');
  limits.length = 0;
  take(40, candidates(db, 1, 1000));
  assert.deepEqual(limits, [4, 8, 16, 16], 'then 8, then the full page of 16');
  limits.length = 0;
  take(1, candidates(db, 8, 1000));
  assert.deepEqual(limits, [16], 'eight places: two rows each');
  limits.length = 0;
  take(1000, candidates(db, 1, 20));
  assert.deepEqual(limits, [4, 8, 8], 'never past the scan');
});
