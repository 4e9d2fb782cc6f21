/**
 * A prompt sent to its workstation ahead (prefetch) waits there behind the running one: it is
 * "next", not running. Its phase (shared/live-attempt.ts), its ETA (the running one's time left
 * plus its own usual run), the live attempts' count of them, a workstation's load in words and a
 * Timeline lane's busy share (never over 100 %, the waiting time not counted).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasStarted, isNextUp, type JobView, type LiveAttempt } from '../../shared/domain.js';
import { LiveAttempts } from '../../electron/engine/pools/comfy-lan/live-attempts.js';
import { etaOf, nextEta } from '../../renderer/lib/eta.js';
import { loadWords } from '../../renderer/lib/format.js';
import { busyShare } from '../../renderer/features/timeline/lane-busy.js';

const attempt = (phase: LiveAttempt['phase'], startedAt: number | null = null): LiveAttempt => ({
  id: 'a',
  phase,
  promptNumber: 1,
  startedAt,
});

test('a running job whose prompt is claimed or posted (not started on its workstation) is next; running or collecting is not', () => {
  assert.equal(isNextUp({ state: 'running', attempt: attempt('claimed') }), true);
  assert.equal(isNextUp({ state: 'running', attempt: attempt('posted') }), true);
  assert.equal(isNextUp({ state: 'running', attempt: attempt('running', 5) }), false);
  assert.equal(isNextUp({ state: 'running', attempt: attempt('collecting', 5) }), false);
  assert.equal(isNextUp({ state: 'running', attempt: null }), false, 'no farm here: taken as started');
  assert.equal(isNextUp({ state: 'queued', attempt: attempt('posted') }), false);
  assert.deepEqual(
    ['claimed', 'posted', 'running', 'collecting'].map((p) => hasStarted(p as LiveAttempt['phase'])),
    [false, false, true, true],
  );
});

test('the live attempts count those not started, and keep the start the server reported', () => {
  const live = new LiveAttempts();
  live.begin('j1', 'a1', null);
  live.begin('j2', 'a2', null);
  live.advance('a1', 'running', 7, 1_000);
  live.advance('a2', 'posted', 8);
  assert.equal(live.notStarted(), 1);
  assert.equal(live.ofJob('j1')?.startedAt, 1_000);
  assert.equal(live.ofJob('j2')?.startedAt, null);
  assert.equal(live.advance('a1', 'collecting', 7, 2_000), true);
  assert.equal(live.ofJob('j1')?.startedAt, 1_000, 'the first start stays');
  live.advance('a2', 'running', 8, 3_000);
  assert.equal(live.notStarted(), 0);
});

test("a next prompt's ETA is the running one's time left plus its own usual run, never its own run alone", () => {
  const estimate = {
    typicalMs: 60_000,
    p90Ms: 70_000,
    runs: 4,
    gpuName: 'RTX 4090',
    coldMs: null,
    coldRuns: 0,
    basis: 'exact' as const,
  };
  const T0 = 1_000_000;
  const running = { state: 'running', startedAt: T0, estimate } as Pick<JobView, 'state' | 'startedAt' | 'estimate'>;
  const ahead = etaOf(running, null, T0 + 20_000);
  assert.equal(ahead.ms, 40_000);
  const next = nextEta({ estimate }, ahead, 'gpu-02');
  assert.equal(next.ms, 100_000);
  assert.match(next.title, /starts when the prompt running on gpu-02 ends, in ~40s, then usually 1m 00s on RTX 4090/);
  assert.equal(
    nextEta({ estimate: null }, ahead, 'gpu-02').text.startsWith('>'),
    true,
    'no own estimate: at least the wait',
  );
  assert.equal(nextEta({ estimate }, null, 'gpu-02').ms, null, 'the running one unknown: no figure');
  assert.equal(
    nextEta({ estimate }, etaOf(running, null, T0 + 70_000), 'gpu-02').ms,
    null,
    'the running one overdue: no figure',
  );
});

test("a workstation's load in words: what renders and what is next, not slots run together", () => {
  assert.equal(loadWords(1, 1), '1 rendering + 1 next');
  assert.equal(loadWords(1, 0), 'Rendering');
  assert.equal(loadWords(0, 0), 'Nothing rendering');
  assert.equal(loadWords(2, 0), '2 rendering');
  assert.equal(loadWords(0, 1), '0 rendering + 1 next');
});

test('a lane is busy while a prompt runs on it: overlapping bars (one sent ahead) count once, waiting time not at all, never over 100 %', () => {
  // A runs 0–100 (recorded ended at 110, after collecting); B was sent at 10, started at 100, runs to 200; C sent at 110, waits.
  const bars = [
    { startedAt: 0, end: 110 },
    { startedAt: 100, end: 200 },
    { startedAt: null, end: null },
  ];
  assert.equal(busyShare(bars, 0, 200, 200), 1);
  assert.equal(busyShare(bars, 0, 400, 400), 0.5, 'the waiting bar adds nothing');
  assert.equal(busyShare([{ startedAt: 50, end: null }], 0, 1_000, 100), 0.5, 'a running bar counts up to now');
  assert.equal(
    busyShare([{ startedAt: null, end: 90 }], 0, 100, 100),
    0,
    'never started (taken back by a pause): no busy time',
  );
});
