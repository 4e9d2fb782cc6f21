/**
 * How the benchmarks judge and explain their figures (test/bench/lib): a timing figure on a loaded
 * machine is UNDER LOAD, not PASS or MISS, and is printed beside its same-run baseline; a CPU
 * profile is charged to the innermost engine module on each sample's stack; whether the engine's
 * thread had a core is read from the scheduler's own statistics.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judged, type LoadReport } from '../bench/lib/baselines.js';
import { breakdownOf, partOfUrl, type CpuProfile } from '../bench/lib/profile-breakdown.js';
import { coreWindow, coreWindowLine, coreWindows, sampleCoreWait, samplerCpuMs } from '../bench/lib/core-wait.js';

const quiet: LoadReport = {
  cores: 2,
  loadAvgBefore: 0.5,
  othersCores: 0.1,
  stealPct: 0,
  underLoad: false,
  why: 'quiet',
};
const loaded: LoadReport = { ...quiet, loadAvgBefore: 9, underLoad: true, why: 'load average 9 ≥ 2 cores' };

test('a timing figure measured under load is marked UNDER LOAD, not judged on its absolute value', () => {
  const base = { label: 'SQLite commit', ms: 2 };
  assert.equal(judged('reaction', 30, 25, 'ms', base, loaded).verdict, 'UNDER LOAD');
  assert.equal(judged('reaction', 30, 25, 'ms', base, quiet).verdict, 'MISS');
  assert.equal(judged('reaction', 20, 25, 'ms', base, quiet).verdict, 'PASS');
  assert.equal(judged('rate', 400, 300, '/s', base, quiet, 0, 'ge').verdict, 'PASS');
});

test('a timing figure is printed beside its baseline with the ratio', () => {
  const f = judged('reaction', 30, 25, 'ms', { label: 'SQLite commit', ms: 2 }, loaded);
  assert.match(f.measured, /^30\.00 ms = ×15\.0 SQLite commit \(2\.000 ms\)$/);
});

test('engine files map to the parts of the breakdown; libraries only where no engine frame is above', () => {
  assert.equal(partOfUrl('file:///r/electron/engine/pools/comfy-lan/instance-registry.ts'), 'probes');
  assert.equal(partOfUrl('file:///r/electron/engine/comfy/station-socket.ts'), 'socket frames');
  assert.equal(partOfUrl('file:///r/electron/engine/scheduler/dispatch-choice.ts'), 'claims');
  assert.equal(partOfUrl('file:///r/electron/engine/store/commit-batch.ts'), 'commits');
  assert.equal(partOfUrl('file:///r/electron/engine/comfy/view-download.ts'), 'outputs');
  assert.equal(partOfUrl('file:///r/node_modules/ws/lib/receiver.js'), 'socket frames');
  assert.equal(partOfUrl('node:net'), null);
});

test('a sample is charged to the innermost engine module on its stack, idle apart', () => {
  const frame = (id: number, url: string, children: number[] = [], functionName = 'f') => ({
    id,
    callFrame: { functionName, url },
    children,
  });
  const profile: CpuProfile = {
    nodes: [
      frame(1, '', [2, 5, 6], '(root)'),
      frame(2, 'file:///r/electron/engine/scheduler/scheduler.ts', [3]),
      frame(3, 'file:///r/electron/engine/store/commit-batch.ts', [4]),
      frame(4, '', [], 'run'), // better-sqlite3's native call: no URL of its own
      frame(5, '', [], '(idle)'),
      frame(6, 'file:///r/node_modules/ws/lib/receiver.js'),
    ],
    samples: [4, 4, 5, 6],
    timeDeltas: [1000, 1000, 5000, 2000],
  };
  const b = breakdownOf(profile);
  assert.equal(b.ms.commits, 2);
  assert.equal(b.ms.claims, 0);
  assert.equal(b.ms['socket frames'], 2);
  assert.equal(b.idleMs, 5);
  assert.equal(b.busyMs, 4);
});

test("a window's core figures are the differences between the samples inside it", () => {
  const at = (t: number, k: number) => ({
    t,
    engineRun: k * 6e6,
    engineWait: k * 3e6,
    processRun: k * 10e6,
    simRun: k * 5e6,
    idle: k * 2e6,
    selfRun: k * 0.1e6,
  });
  const samples = [at(0, 0), at(10, 1), at(20, 2), at(30, 3), at(40, 4)];
  const w = coreWindow(samples, 5, 35);
  assert.ok(w);
  // Each end read between the samples around it: 5 → 35 ms is three steps' worth.
  assert.equal(w.wallMs, 30);
  assert.ok(Math.abs(w.engineRunMs - 18) < 1e-9);
  assert.ok(Math.abs(w.engineWaitMs - 9) < 1e-9);
  // The process's 30 ms less the main thread's 18 and the sampler's 0.3: 11.7 ms over 30.
  assert.ok(Math.abs(w.otherCores - 0.39) < 1e-9);
  assert.ok(Math.abs(w.simCores - 0.5) < 1e-9);
  assert.match(coreWindowLine(w), /^30 ms: the engine's thread on a core 18 ms, waiting for one 9 ms \(30 %\)/);
  assert.equal(coreWindow(samples, 50, 60)?.wallMs ?? null, null, 'after the last sample: nothing to say');
  assert.equal(coreWindow(samples, 30, 60)?.wallMs, 10, 'cut to the samples');
  const late = coreWindows(samples, [
    [0, 10],
    [25, 40],
  ]);
  assert.equal(late.wallMs, 25);
  assert.ok(Math.abs(late.engineWaitMs - 7.5) < 1e-9);
  assert.match(coreWindowLine(null), /not measured/);
  // The sampler's own CPU over all its samples, to take out of the engine process's figures.
  assert.ok(Math.abs(samplerCpuMs(samples) - 0.4) < 1e-9);
  assert.equal(samplerCpuMs([]), 0);
});

test('the core sampler sees the engine thread run while it computes', {
  skip: process.platform !== 'linux',
}, async () => {
  const sampler = sampleCoreWait([process.pid]);
  assert.ok(sampler, 'Linux has per-thread scheduler statistics');
  await sampler.ready;
  const from = performance.timeOrigin + performance.now();
  const until = Date.now() + 300;
  while (Date.now() < until); // 300 ms on a core (less whatever the machine took)
  await new Promise((r) => setTimeout(r, 60));
  const w = coreWindow(await sampler.stop(), from, Number.POSITIVE_INFINITY);
  assert.ok(w);
  assert.ok(w.engineRunMs + w.engineWaitMs >= 200, JSON.stringify(w));
  assert.ok(w.engineRunMs <= w.wallMs + 30, JSON.stringify(w));
});
