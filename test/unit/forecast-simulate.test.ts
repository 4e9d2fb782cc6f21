import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simJob } from '../helpers/sim-job.js';
import { dispatchOrder, simulate, type SimStation } from '../../electron/engine/forecast/simulate.js';
import { buildGroups } from '../../electron/engine/forecast/forecast-groups.js';
import { classTop } from '../../electron/engine/forecast/forecaster.js';
import { forecastLine, parseDue } from '../../shared/forecast.js';

const NOW = Date.UTC(2026, 11, 4, 20, 0, 0);
const station = (id: string, gpuName: string, slots = 1, vram = 24): SimStation => ({
  id,
  gpuName,
  usableVramGb: vram,
  tags: [],
  freeAt: Array.from({ length: slots }, () => NOW),
  lastCheckpoint: null,
});
const job = simJob;
const figures = {
  fast: { meanMs: 10_000, sdMs: 0, coldMs: 30_000 },
  slow: { meanMs: 30_000, sdMs: 0, coldMs: 50_000 },
};

test('the simulation hands each job, in dispatch order, to the slot that frees first; the first on a GPU pays the model load', () => {
  const ends = simulate({
    now: NOW,
    stations: [station('a', 'fast'), station('b', 'slow')],
    jobs: [job('j1'), job('j2'), job('j3'), job('j4')],
    figure: (_t, gpu) => figures[gpu as 'fast' | 'slow'],
    fallbackMs: 60_000,
  });
  // a: j1 cold 30 s, then j3 at 30 s (+10) = 40 s, j4 at 40 → 50; b: j2 cold 50 s.
  assert.equal(ends.get('j1')?.p50, NOW + 30_000);
  assert.equal(ends.get('j2')?.p50, NOW + 50_000);
  assert.equal(ends.get('j3')?.p50, NOW + 40_000);
  assert.equal(ends.get('j4')?.p50, NOW + 50_000);
  assert.equal(ends.get('j4')?.stationId, 'a');
});

test('with prefetch a job goes to the place that opens first, as the dispatcher sends it: the last one waits behind the slow GPU', () => {
  const input = {
    now: NOW,
    stations: [station('a', 'fast'), station('b', 'slow')],
    jobs: [job('j1'), job('j2'), job('j3'), job('j4')],
    figure: (_t: number, gpu: string) => ({ ...figures[gpu as 'fast' | 'slow'], coldMs: null }),
    fallbackMs: 60_000,
  };
  // The farm: j1 and j2 start at once on a and b, j3 waits behind j1 on a; j4 finds only b's place
  // open (a's is taken by j3 until it starts at 10 s) and waits there behind j2 — ending at 60 s,
  // not at 30 s on a, where the slot that frees first would have put it.
  const sent = simulate({ ...input, prefetch: true });
  assert.equal(sent.get('j3')?.p50, NOW + 20_000);
  assert.equal(sent.get('j4')?.stationId, 'b');
  assert.equal(sent.get('j4')?.p50, NOW + 60_000);
  const greedy = simulate(input);
  assert.equal(greedy.get('j4')?.stationId, 'a');
  assert.equal(greedy.get('j4')?.p50, NOW + 30_000);
});

test('with prefetch a workstation whose waiting prompt has not started takes no job before that place opens', () => {
  const ends = simulate({
    now: NOW,
    // a runs one prompt (ends at 10 s) with another waiting behind it (ends at 20 s): its place opens at 10 s.
    stations: [{ ...station('a', 'fast'), freeAt: [NOW + 20_000], placeOpensAt: NOW + 10_000 }, station('b', 'slow')],
    jobs: [job('j1'), job('j2'), job('j3')],
    figure: (_t, gpu) => ({ ...figures[gpu as 'fast' | 'slow'], coldMs: null }),
    fallbackMs: 60_000,
    prefetch: true,
  });
  assert.equal(ends.get('j1')?.stationId, 'b', 'b is idle: its slot is open now');
  assert.equal(ends.get('j2')?.stationId, 'b', "then b's place behind j1, open now, though a would start it sooner");
  assert.equal(ends.get('j2')?.p50, NOW + 60_000);
  assert.equal(ends.get('j3')?.stationId, 'a', 'then a, whose place opens at 10 s');
  assert.equal(ends.get('j3')?.p50, NOW + 30_000);
});

test('a job no station can take (VRAM, tags) is left out; one waiting for another starts after it', () => {
  const ends = simulate({
    now: NOW,
    stations: [station('a', 'fast'), station('b', 'fast')],
    jobs: [
      job('big', { vramGb: 48 }),
      job('after', { dependsOn: 'first' }),
      job('first'),
      job('tagged', { tags: ['video'] }),
    ],
    figure: () => ({ meanMs: 10_000, sdMs: 5_000, coldMs: null }),
    fallbackMs: 60_000,
  });
  assert.equal(ends.has('big'), false);
  assert.equal(ends.has('tagged'), false);
  assert.ok((ends.get('after')?.p50 ?? 0) >= (ends.get('first')?.p50 ?? Infinity));
  const first = ends.get('first');
  assert.ok(first && first.p90 > first.p50, 'the spread of a run gives a p90 past the median');
});

test('the p90 of a long queue grows with the square root of its length, not with the sum of p90s', () => {
  const jobs = Array.from({ length: 100 }, (_, i) => job(`j${i}`, { checkpoint: null }));
  const ends = simulate({
    now: NOW,
    stations: [station('a', 'fast')],
    jobs,
    figure: () => ({ meanMs: 10_000, sdMs: 2_200, coldMs: null }),
    fallbackMs: 60_000,
  });
  const last = ends.get('j99');
  assert.equal(last?.p50, NOW + 1_000_000);
  // σ = 2.2 s per run; 100 runs: σ = 22 s, p90 ≈ 28 s past the median (not 100 × 2.8 s).
  assert.ok(last && Math.abs(last.p90 - last.p50 - 28_160) < 50, `p90 − p50 = ${(last?.p90 ?? 0) - (last?.p50 ?? 0)}`);
});

test('dispatch order: priority first; below rush the projects are interleaved by fair share', () => {
  const order = dispatchOrder(
    [
      job('a1', { project: 'A', enqueuedAt: 1 }),
      job('a2', { project: 'A', enqueuedAt: 2 }),
      job('b1', { project: 'B', enqueuedAt: 3 }),
      job('r', { project: 'A', priority: 300, enqueuedAt: 9 }),
    ],
    1000,
  ).map((j) => j.id);
  assert.deepEqual(order, ['r', 'a1', 'b1', 'a2']);
});

test('a group is flagged late exactly when its forecast p90 passes its due time', () => {
  const counts = [
    {
      project: 'p',
      episode: 'ep1',
      sequence: 'sq1',
      state: 'queued' as const,
      n: 1,
      lastFinished: null,
      firstDue: NOW + 100_000,
    },
    {
      project: 'p',
      episode: 'ep2',
      sequence: '',
      state: 'queued' as const,
      n: 1,
      lastFinished: null,
      firstDue: NOW + 100_000,
    },
  ];
  const unfinished = [
    { id: 'x', project: 'p', episode: 'ep1', shot: 'sq1_sh010', state: 'queued' as const },
    { id: 'y', project: 'p', episode: 'ep2', shot: 'sh010', state: 'queued' as const },
  ];
  for (const [p90, late] of [
    [NOW + 99_999, false],
    [NOW + 100_000, false],
    [NOW + 100_001, true],
  ] as const) {
    const ends = new Map([
      ['x', { p50: NOW + 50_000, p90, stationId: 'a' }],
      ['y', { p50: NOW + 50_000, p90: NOW + 60_000, stationId: 'a' }],
    ]);
    const groups = buildGroups(counts, unfinished, ends);
    const ep1 = groups.find((g) => g.key === 'p/ep1');
    assert.equal(ep1?.late, late, `p90 ${p90 - NOW} ms past now, due 100000`);
    assert.equal(groups.find((g) => g.key === 'p/ep1/sq1')?.late, late);
    assert.equal(groups.find((g) => g.key === 'p/ep2')?.late, false);
    assert.equal(groups.find((g) => g.key === 'p')?.late, late, 'the project carries its earliest due time');
  }
});

test('a status line says the range, the due time and ✓ / ✗ with what would make it', () => {
  const g = {
    kind: 'episode' as const,
    key: 'p/ep101',
    project: 'p',
    episode: 'ep101',
    sequence: null,
    total: 340,
    done: 100,
    running: 4,
    queued: 236,
    other: 0,
    p50At: NOW + 3_600_000,
    p90At: NOW + 5_400_000,
    dueAt: NOW + 7_200_000,
    late: false,
    remedy: null,
    unplaced: 0,
  };
  assert.match(forecastLine(g, NOW), /^p\/ep101: 340 jobs, done ≈ \S+–\S+; due \S+ ✓$/);
  const late = { ...g, dueAt: NOW + 1_800_000, late: true, remedy: '2 more GPUs or a bump would make it' };
  assert.match(forecastLine(late, NOW), /due \S+ ✗ — 2 more GPUs or a bump would make it$/);
});

test('due times: ISO date and time (zone or local), a date alone is its end of day; bad ones say how to write it', () => {
  assert.deepEqual(parseDue('2026-12-05T09:00Z', NOW), { ok: true, value: Date.UTC(2026, 11, 5, 9, 0) });
  assert.deepEqual(parseDue('2026-12-05T09:00+01:00', NOW), { ok: true, value: Date.UTC(2026, 11, 5, 8, 0) });
  assert.deepEqual(parseDue('2026-12-05 09:00', NOW), { ok: true, value: new Date(2026, 11, 5, 9, 0).getTime() });
  assert.deepEqual(parseDue('2026-12-05', NOW), { ok: true, value: new Date(2026, 11, 5, 23, 59).getTime() });
  for (const bad of ['tomorrow', '2026-13-05', '2026-02-30T09:00', '2026-12-05T25:00', '05/12/2026', '']) {
    const r = parseDue(bad, NOW);
    assert.equal(r.ok, false, bad);
    if (!r.ok) assert.match(r.message, /write it as 2026-12-05T09:00/);
  }
  const far = parseDue('20266-12-05', NOW);
  assert.equal(far.ok, false);
  const typo = parseDue('2036-12-05', NOW);
  assert.equal(typo.ok, false);
  if (!typo.ok) assert.match(typo.message, /five years ahead/);
});

test('the late bump stays within the priority class', () => {
  assert.equal(classTop(100), 199);
  assert.equal(classTop(150), 199);
  assert.equal(classTop(0), 99);
  assert.equal(classTop(200), 299);
  assert.equal(classTop(300), 399);
});

test('a bucket of n like jobs ends where the same n jobs played one by one end, on mixed GPUs with a model load', () => {
  const stations = () => [station('a', 'fast', 2), station('b', 'slow'), station('c', 'fast', 1, 8)];
  const figure = (_t: number, gpu: string) => ({ ...figures[gpu as 'fast' | 'slow'], sdMs: 3_000 });
  for (const n of [1, 2, 7, 50, 333]) {
    const singles = simulate({
      now: NOW,
      stations: stations(),
      jobs: [job('before', { priority: 200 }), ...Array.from({ length: n }, (_, i) => job(`j${i}`, { enqueuedAt: i }))],
      figure,
      fallbackMs: 60_000,
    });
    const bucket = simulate({
      now: NOW,
      stations: stations(),
      jobs: [job('before', { priority: 200 }), job('all', { count: n })],
      figure,
      fallbackMs: 60_000,
    });
    const last = Math.max(...Array.from({ length: n }, (_, i) => singles.get(`j${i}`)?.p50 ?? 0));
    const lastP90 = Math.max(...Array.from({ length: n }, (_, i) => singles.get(`j${i}`)?.p90 ?? 0));
    assert.equal(bucket.get('all')?.p50, last, `${n} jobs: the bucket ends with its last job`);
    assert.ok(Math.abs((bucket.get('all')?.p90 ?? 0) - lastP90) < 1, `${n} jobs: the same spread`);
  }
  // A bucket no station fits (VRAM) is left out, as its jobs would be.
  const none = simulate({
    now: NOW,
    stations: stations(),
    jobs: [job('big', { count: 10, vramGb: 48 })],
    figure,
    fallbackMs: 60_000,
  });
  assert.equal(none.has('big'), false);
});

test('buckets take their fair share: two projects at one priority finish together, whatever their bucket sizes', () => {
  const ends = simulate({
    now: NOW,
    stations: [station('a', 'fast', 4)],
    jobs: [
      ...Array.from({ length: 20 }, (_, i) =>
        job(`a${i}`, { project: 'A', count: 50, enqueuedAt: i, checkpoint: null }),
      ),
      ...Array.from({ length: 10 }, (_, i) =>
        job(`b${i}`, { project: 'B', count: 100, enqueuedAt: i, checkpoint: null }),
      ),
    ],
    figure: () => ({ meanMs: 10_000, sdMs: 0, coldMs: null }),
    fallbackMs: 60_000,
  });
  const a = Math.max(...Array.from({ length: 20 }, (_, i) => ends.get(`a${i}`)?.p50 ?? 0));
  const b = Math.max(...Array.from({ length: 10 }, (_, i) => ends.get(`b${i}`)?.p50 ?? 0));
  // 2000 jobs of 10 s on 4 slots: 5000 s; each project's last ends within a piece's run (250 s) of the end.
  assert.ok(Math.abs(a - (NOW + 5_000_000)) <= 250_000, `A ends ${(a - NOW) / 1000} s`);
  assert.ok(Math.abs(b - (NOW + 5_000_000)) <= 250_000, `B ends ${(b - NOW) / 1000} s`);
});

test('dispatch order takes a studio-sized level (300k jobs of two projects at one priority) without overflowing the call stack', () => {
  const jobs = Array.from({ length: 300_000 }, (_, i) => job(`j${i}`, { project: i % 2 ? 'A' : 'B', enqueuedAt: i }));
  const order = dispatchOrder(jobs, 1000);
  assert.equal(order.length, 300_000);
  assert.deepEqual(
    order.slice(0, 4).map((j) => j.project),
    ['B', 'A', 'B', 'A'],
  );
});
