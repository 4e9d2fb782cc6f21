import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simJob } from '../helpers/sim-job.js';
import { play, simulate, type SimJob, type SimStation } from '../../electron/engine/forecast/simulate.js';
import type { SimBurst, SimEndpoint } from '../../electron/engine/forecast/burst-capacity.js';
import { cloudCapacity, UNMEASURED_DELAY_MS } from '../../electron/engine/forecast/cloud-capacity.js';
import { burstWords } from '../../shared/forecast.js';
import type { InstanceView } from '../../shared/domain.js';
import { paceSd, RunModel } from '../../electron/engine/forecast/run-model.js';

const NOW = Date.UTC(2026, 11, 4, 20, 0, 0);
const station = (id: string, gpuName = 'lan'): SimStation => ({
  id,
  gpuName,
  usableVramGb: 24,
  tags: [],
  freeAt: [NOW],
  lastCheckpoint: 'sdxl',
});
const job = (id: string, over: Partial<SimJob> = {}): SimJob => simJob(id, { enqueuedAt: NOW, ...over });
const jobs = (n: number): SimJob[] => Array.from({ length: n }, (_, i) => job(`j${i}`, { enqueuedAt: NOW + i }));
/** 10 s a run on the LAN's GPU and on the cloud's; no spread (exact arithmetic). */
const figure = () => ({ meanMs: 10_000, sdMs: 0, coldMs: null });
/** $3.60 an hour: a 10 s run after a 5 s delay bills 15 s = $0.015. */
const endpoint = (over: Partial<SimEndpoint> = {}): SimEndpoint => ({
  id: 'rp',
  name: 'rp-a',
  gpuName: 'cloud',
  tags: [],
  vramGb: 48,
  freeAt: [NOW, NOW],
  delayMs: 5_000,
  pricePerHourUsd: 3.6,
  ...over,
});
const burst = (over: Partial<SimBurst> = {}): SimBurst => ({
  afterMs: 30_000,
  endpoints: [endpoint()],
  budgetUsdPerDay: 50,
  spentTodayUsd: 0,
  ...over,
});
const lastEnd = (ends: Map<string, { p50: number }>): number => Math.max(...[...ends.values()].map((e) => e.p50));

test('with burst allowed, jobs that would wait past burst_after_s go to the RunPod workers, at most one per worker at a time', () => {
  const input = { now: NOW, stations: [station('a')], jobs: jobs(20), figure, fallbackMs: 60_000 };
  const lan = simulate(input);
  const r = play({ ...input, burst: burst() });
  assert.equal(lastEnd(lan), NOW + 200_000, 'the LAN alone: 20 runs of 10 s');
  const onCloud = [...r.ends.entries()].filter(([, e]) => e.stationId === 'rp');
  assert.ok(onCloud.length > 0, 'some jobs are counted on the endpoint');
  assert.equal(r.cloud?.jobs, onCloud.length);
  assert.ok(lastEnd(r.ends) < NOW + 120_000, `the episode ends sooner: ${(lastEnd(r.ends) - NOW) / 1000} s`);
  // The first jobs start on the LAN before they have waited 30 s: they never go to the cloud.
  for (const id of ['j0', 'j1', 'j2']) assert.equal(r.ends.get(id)?.stationId, 'a', id);
  // A cloud run holds its worker for RunPod's delay and the run (15 s): never more than 2 at once.
  const spans = onCloud.map(([, e]) => [e.p50 - 15_000, e.p50] as const);
  for (const [s] of spans) assert.ok(spans.filter(([a, b]) => a <= s && s < b).length <= 2, 'two workers');
  assert.ok(
    spans.every(([s]) => s >= NOW + 30_000),
    'none starts before burst_after_s',
  );
  assert.ok(Math.abs((r.cloud?.costUsd ?? 0) - onCloud.length * 0.015) < 1e-9, 'each billed 15 s at $3.60/h');
});

test("the cloud takes jobs only until the day's budget is spent: the rest wait for the LAN, and the run-out time is kept", () => {
  // $1 a run (1,000 s at $3.60/h) and $3 left today: the engine sends while the spend is under the budget — three runs.
  const slow = () => ({ meanMs: 995_000, sdMs: 0, coldMs: null });
  const r = play({
    now: NOW,
    stations: [station('a')],
    jobs: jobs(12),
    figure: slow,
    fallbackMs: 60_000,
    burst: burst({ spentTodayUsd: 47, endpoints: [endpoint({ freeAt: [NOW, NOW, NOW, NOW] })] }),
  });
  assert.equal(r.cloud?.jobs, 3);
  assert.ok(Math.abs((r.cloud?.costUsd ?? 0) - 3) < 1e-9);
  assert.equal([...r.ends.values()].filter((e) => e.stationId === 'rp').length, 3);
  assert.equal([...r.ends.values()].filter((e) => e.stationId === 'a').length, 9, 'the rest on the LAN');
  assert.ok(r.cloud?.budgetOutAt !== null && (r.cloud?.budgetOutAt ?? 0) >= NOW + 30_000, 'ran out once burst began');
});

test('the budget is per UTC day: spent today, the cloud takes jobs again after midnight', () => {
  const late = Date.UTC(2026, 11, 4, 23, 58, 0);
  const r = play({
    now: late,
    stations: [{ ...station('a'), freeAt: [late] }],
    jobs: jobs(40).map((j) => ({ ...j, enqueuedAt: late })),
    figure,
    fallbackMs: 60_000,
    burst: burst({ spentTodayUsd: 50 }),
  });
  const cloud = [...r.ends.values()].filter((e) => e.stationId === 'rp');
  assert.ok(cloud.length > 0, 'after midnight the budget is whole again');
  const midnight = Date.UTC(2026, 11, 5);
  assert.ok(
    cloud.every((e) => e.p50 - 15_000 >= midnight),
    'no cloud run starts before midnight',
  );
});

test('a bucket of like jobs uses the cloud as the same jobs played one by one do', () => {
  const input = { now: NOW, stations: [station('a'), station('b')], figure, fallbackMs: 60_000, burst: burst() };
  for (const n of [5, 40, 333]) {
    const singles = play({ ...input, jobs: Array.from({ length: n }, (_, i) => job(`j${i}`)) });
    const bucket = play({ ...input, jobs: [job('all', { count: n })] });
    assert.equal(bucket.ends.get('all')?.p50, lastEnd(singles.ends), `${n} jobs end together`);
    assert.equal(bucket.cloud?.jobs, singles.cloud?.jobs, `${n} jobs: as many on the cloud`);
  }
});

test('a bucket on the cloud stops at the budget too', () => {
  const slow = () => ({ meanMs: 995_000, sdMs: 0, coldMs: null });
  const r = play({
    now: NOW,
    stations: [station('a')],
    jobs: [job('all', { count: 12 })],
    figure: slow,
    fallbackMs: 60_000,
    burst: burst({ spentTodayUsd: 47, endpoints: [endpoint({ freeAt: [NOW, NOW, NOW, NOW] })] }),
  });
  assert.equal(r.cloud?.jobs, 3);
  assert.notEqual(r.cloud?.budgetOutAt, null);
});

const view = (over: Partial<InstanceView> & { price?: number } = {}): InstanceView => {
  const { price, ...rest } = over;
  return {
    id: 'rp',
    name: 'rp-a',
    url: 'https://api.runpod.ai/v2/abc',
    tags: [],
    maxConcurrency: 4,
    vramOverrides: {},
    adminState: 'active',
    health: 'idle',
    gpuName: 'RTX 4090',
    vram: null,
    comfyVersion: null,
    queueLength: null,
    currentJobIds: [],
    lastProbeAt: null,
    lastAnswerAt: null,
    lastError: null,
    quarantinedUntil: null,
    createdAt: 0,
    kind: 'runpod',
    endpoint: {
      endpointId: 'abc',
      apiBase: 'https://api.runpod.ai/v2',
      pricePerHourUsd: price ?? 2,
      executionTimeoutS: 600,
    },
    ...rest,
  } as InstanceView;
};
const facts = (over: Partial<Parameters<typeof cloudCapacity>[0]> = {}) => ({
  endpoints: [view()],
  free: new Map<string, number[]>(),
  now: NOW,
  burstAfterS: 600,
  budgetUsdPerDay: 50,
  spentTodayUsd: () => 38,
  delayOf: () => null,
  ...over,
});

test('burst counted: the endpoints and their workers, the budget left today, in words', () => {
  const c = cloudCapacity(facts({ free: new Map([['rp', [NOW + 60_000]]]), delayOf: () => 12_000 }));
  assert.equal(c.sim?.afterMs, 600_000);
  assert.deepEqual(
    [...(c.sim?.endpoints[0]?.freeAt ?? [])].sort((a, b) => a - b),
    [NOW, NOW, NOW, NOW + 60_000],
    'a running attempt holds a worker',
  );
  assert.equal(c.sim?.endpoints[0]?.delayMs, 12_000, 'the measured delay');
  assert.equal(cloudCapacity(facts()).sim?.endpoints[0]?.delayMs, UNMEASURED_DELAY_MS);
  assert.equal(c.view?.counted, true);
  assert.equal(
    burstWords(c.view as NonNullable<typeof c.view>, NOW),
    'incl. up to 4 RunPod workers, $12 of $50 left today',
  );
  const used = { ...(c.view as NonNullable<typeof c.view>), jobs: 30, costUsd: 9.4, budgetOutAt: NOW + 3_600_000 };
  assert.match(
    burstWords(used, NOW),
    /^incl\. up to 4 RunPod workers, \$12 of \$50 left today — ≈ 30 jobs there \(≈ \$9\.40\), the budget runs out ≈ \S+$/,
  );
});

test('burst not counted: off, budget spent, endpoint unhealthy or disabled — and the words say why', () => {
  const off = cloudCapacity(facts({ budgetUsdPerDay: 0 }));
  assert.equal(off.sim, null);
  assert.equal(
    burstWords(off.view as NonNullable<typeof off.view>, NOW),
    'RunPod not counted: cloud burst is off (burst_budget_usd_per_day is 0)',
  );
  const spent = cloudCapacity(facts({ spentTodayUsd: () => 50 }));
  assert.equal(spent.sim, null);
  assert.match(
    burstWords(spent.view as NonNullable<typeof spent.view>, NOW),
    /today's cloud budget is spent \(\$50\.00 of \$50\.00\)/,
  );
  const sick = cloudCapacity(facts({ endpoints: [view({ health: 'unhealthy', lastError: 'API key rejected' })] }));
  assert.equal(sick.sim, null);
  assert.equal(
    burstWords(sick.view as NonNullable<typeof sick.view>, NOW),
    'RunPod not counted: rp-a is unhealthy (API key rejected)',
  );
  // One endpoint unhealthy, another fine: only the healthy one is counted.
  const mixed = cloudCapacity(
    facts({ endpoints: [view({ health: 'unhealthy' }), view({ id: 'rp2', name: 'rp-b', maxConcurrency: 2 })] }),
  );
  assert.deepEqual(
    mixed.sim?.endpoints.map((e) => e.id),
    ['rp2'],
  );
  assert.equal(mixed.view?.workers, 2);
  // Disabled endpoints, or none at all: the forecast says nothing of the cloud.
  assert.deepEqual(cloudCapacity(facts({ endpoints: [view({ adminState: 'disabled' })] })), { sim: null, view: null });
  assert.deepEqual(cloudCapacity(facts({ endpoints: [] })), { sim: null, view: null });
});

test('an unhealthy endpoint mid-episode: the same episode forecast without it ends later', () => {
  const input = { now: NOW, stations: [station('a')], jobs: jobs(30), figure, fallbackMs: 60_000 };
  const healthy = cloudCapacity(facts({ budgetUsdPerDay: 50, spentTodayUsd: () => 0, burstAfterS: 30 }));
  const sick = cloudCapacity(
    facts({ endpoints: [view({ health: 'unhealthy' })], spentTodayUsd: () => 0, burstAfterS: 30 }),
  );
  const withCloud = play({ ...input, ...(healthy.sim ? { burst: healthy.sim } : {}) });
  const without = play({ ...input, ...(sick.sim ? { burst: sick.sim } : {}) });
  assert.ok((withCloud.cloud?.jobs ?? 0) > 0);
  assert.equal(without.cloud, null);
  assert.equal(lastEnd(without.ends), NOW + 300_000);
  assert.ok(lastEnd(withCloud.ends) < lastEnd(without.ends));
});

// ─── The range (p50–p90) ────────────────────────────────────────────────────────────────────────

test("the pace's uncertainty is shared by a key's runs: it widens a long queue's p90 linearly, not by the square root", () => {
  const run = (paceSdMs: number) =>
    simulate({
      now: NOW,
      stations: [station('a')],
      jobs: jobs(100).map((j) => ({ ...j, checkpoint: null })),
      figure: () => ({ meanMs: 10_000, sdMs: 2_200, coldMs: null, paceSdMs }),
      fallbackMs: 60_000,
    }).get('j99');
  const alone = run(0);
  const shared = run(300);
  assert.equal(shared?.p50, alone?.p50, 'the median does not move');
  // σ of the sum: √(100 × 2.2² + (100 × 0.3)²) s = √(484 + 900) = 37.2 s → p90 − p50 ≈ 47.7 s (28.2 s without).
  const width = (shared?.p90 ?? 0) - (shared?.p50 ?? 0);
  assert.ok(Math.abs(width - 1.2816 * Math.sqrt(100 * 2_200 ** 2 + (100 * 300) ** 2)) < 50, `p90 − p50 = ${width}`);
});

test("retries at the template's observed failure rate lengthen the median and widen the range", () => {
  const m = new RunModel(
    Array.from({ length: 8 }, () => ({ templateId: 1, gpuName: 'lan', bucket: 'b', ms: 10_000, cold: false })),
    [
      { templateId: 1, ms: 4_000, why: 'retry' },
      { templateId: 1, ms: 6_000, why: 'retry' },
    ],
  );
  const r = m.retryOf(1);
  assert.equal(r.rate, 0.2, '2 of 10 attempts were run again');
  assert.equal(r.meanMs, 0.25 * 5_000, 'a quarter of a retry per job, each 5 s');
  assert.equal(m.retryOf(2).meanMs, 0, 'a template that never failed loses nothing');
  const base = { now: NOW, stations: [station('a')], jobs: jobs(10), fallbackMs: 60_000 };
  const plain = simulate({ ...base, figure: () => ({ meanMs: 10_000, sdMs: 500, coldMs: null }) }).get('j9');
  const retried = simulate({
    ...base,
    figure: () => ({ meanMs: 10_000, sdMs: 500, coldMs: null, retryMs: r.meanMs, retrySdMs: r.sdMs }),
  }).get('j9');
  assert.equal((retried?.p50 ?? 0) - (plain?.p50 ?? 0), 10 * 1_250);
  assert.ok((retried?.p90 ?? 0) - (retried?.p50 ?? 0) > (plain?.p90 ?? 0) - (plain?.p50 ?? 0) + 1_000);
});

test('workstations going away at the observed rate widen the p90 of a long forecast, not its median', () => {
  const m = new RunModel(
    Array.from({ length: 99 }, () => ({
      templateId: 1,
      gpuName: 'lan',
      bucket: 'b',
      ms: 3_600_000 / 100,
      cold: false,
    })),
    [{ templateId: 1, ms: 3_600_000 / 100, why: 'lost' }],
  );
  assert.ok(Math.abs(m.lossPerGpuHour() - 1) < 1e-9, 'one lost in an hour of GPU time');
  const base = {
    now: NOW,
    stations: [station('a'), station('b'), station('c')],
    jobs: jobs(300),
    figure: () => ({ meanMs: 60_000, sdMs: 0, coldMs: null }),
    fallbackMs: 60_000,
  };
  const steady = simulate(base).get('j299');
  const lossy = simulate({ ...base, lossPerGpuHour: m.lossPerGpuHour() / 10 }).get('j299');
  assert.equal(lossy?.p50, steady?.p50);
  assert.equal(steady?.p90, steady?.p50, 'no spread, no loss: no range');
  assert.ok(
    (lossy?.p90 ?? 0) > (lossy?.p50 ?? 0) + 10 * 60_000,
    `p90 − p50 = ${((lossy?.p90 ?? 0) - (lossy?.p50 ?? 0)) / 1000} s`,
  );
});

test("a pace that drifts over time (successive batches' means spread beyond chance) is a wider uncertainty than steady runs", () => {
  // Same mean and spread: alternating runs (steady) vs a slow half then a fast half (the host got busy).
  const steady = Array.from({ length: 40 }, (_, i) => (i % 2 ? 1_200 : 800));
  const drifting = Array.from({ length: 40 }, (_, i) => (i < 20 ? 1_200 : 800));
  const mean = 1_000;
  const sd = 200;
  const se = (sd / Math.sqrt(40)) * (1 + 1 / 39);
  assert.ok(Math.abs(paceSd(steady, mean, sd) - se) < 1, 'steady: the standard error alone');
  assert.ok(paceSd(drifting, mean, sd) > 150, `drifting: ${paceSd(drifting, mean, sd)}`);
  assert.ok(
    paceSd([1_000, 1_100, 900], 1_000, 81.6) > 81.6 / Math.sqrt(3),
    'few runs: wider than the plain standard error',
  );
  const m = new RunModel(drifting.map((ms) => ({ templateId: 1, gpuName: 'lan', bucket: 'b', ms, cold: false })));
  assert.equal(m.figure(1, 'lan', 'b')?.paceSdMs, Math.round(paceSd(drifting, mean, sd)));
});

test("RunPod's delay before a run is learned per endpoint (median of its runs)", () => {
  const m = new RunModel([
    { templateId: 1, gpuName: 'RTX 4090', bucket: 'b', ms: 9_000, cold: false, instanceId: 'rp', delayMs: 4_000 },
    { templateId: 1, gpuName: 'RTX 4090', bucket: 'b', ms: 9_000, cold: false, instanceId: 'rp', delayMs: 30_000 },
    { templateId: 1, gpuName: 'RTX 4090', bucket: 'b', ms: 9_000, cold: false, instanceId: 'rp', delayMs: 6_000 },
  ]);
  assert.equal(m.delayOf('rp'), 6_000);
  assert.equal(m.delayOf('other'), null);
});

test("a workstation's dispatch gap (its GPU idle after a run while work was queued) is added to each run there", () => {
  const m = new RunModel(
    [],
    [],
    [
      { instanceId: 'a', ms: 0 },
      { instanceId: 'a', ms: 200 },
      { instanceId: 'b', ms: 1_000 },
    ],
  );
  assert.deepEqual(m.gapOf('a'), { meanMs: 100, sdMs: 100 });
  assert.equal(m.gapOf('new')?.meanMs, 400, 'a workstation with none measured: the farm-wide gap');
  const base = { now: NOW, jobs: jobs(10), figure, fallbackMs: 60_000 };
  const tight = simulate({ ...base, stations: [station('a')] }).get('j9');
  const gappy = simulate({ ...base, stations: [{ ...station('a'), gapMs: 100, gapSdMs: 100 }] }).get('j9');
  assert.equal((gappy?.p50 ?? 0) - (tight?.p50 ?? 0), 10 * 100);
  assert.ok((gappy?.p90 ?? 0) - (gappy?.p50 ?? 0) > 0, 'and its spread widens the range');
});
