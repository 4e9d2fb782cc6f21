/** The cloud burst policy and a RunPod attempt's cost, table-tested (pure functions). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { burstDecision, type BurstInput } from '../../electron/engine/pools/runpod/burst-policy.js';
import { attemptCost, utcDayStart } from '../../electron/engine/pools/runpod/runpod-cost.js';
import { isPermanentWorkerError } from '../../electron/engine/pools/runpod/runpod-protocol.js';
import { parseRetryAfter } from '../../electron/engine/pools/runpod/runpod-client.js';

const base: BurstInput = {
  waitedS: 0,
  rush: false,
  lanSlotFree: false,
  burstAfterS: 600,
  spentTodayUsd: 0,
  budgetUsdPerDay: 10,
};

test('burst policy: LAN first, the cloud only after burst_after_s or for rush with no LAN slot, and only under the budget', () => {
  const rows: [string, Partial<BurstInput>, boolean, RegExp | null][] = [
    ['a fresh normal job waits', {}, false, /cloud burst waits until the job has waited 10 min/],
    ['waited exactly burst_after_s still waits', { waitedS: 600 }, false, /waited 10 min/],
    ['waited longer bursts', { waitedS: 601 }, true, null],
    ['rush with no LAN slot free bursts at once', { rush: true }, true, null],
    ['rush while a LAN slot is free waits', { rush: true, lanSlotFree: true }, false, /waited 10 min/],
    [
      'budget spent: no burst however long it waited',
      { waitedS: 10_000, spentTodayUsd: 10 },
      false,
      /today's cloud budget is spent \(\$10\.00 of \$10\.00\)/,
    ],
    ['budget spent: no burst for rush either', { rush: true, spentTodayUsd: 12 }, false, /budget is spent/],
    ['just under the budget bursts', { waitedS: 700, spentTodayUsd: 9.99 }, true, null],
    ['a zero budget means never', { waitedS: 10_000, budgetUsdPerDay: 0 }, false, /burst is off/],
    ['burst_after_s 0 bursts any waiting job', { burstAfterS: 0, waitedS: 0.5 }, true, null],
  ];
  for (const [what, over, take, reason] of rows) {
    const d = burstDecision({ ...base, ...over });
    assert.equal(d.take, take, what);
    if (!d.take && reason) assert.match(d.reason, reason, what);
  }
  const waiting = burstDecision({ ...base, waitedS: 100 });
  assert.equal(waiting.take ? null : waiting.askAgainInS, 500);
});

test('cost: billed seconds are delayTime + executionTime rounded up, times the hourly price', () => {
  const rows: [number | undefined, number | undefined, number, number, number][] = [
    [0, 0, 3.6, 0, 0],
    [1, 0, 3.6, 1, 0.001],
    [900, 100, 3.6, 1, 0.001],
    [12_000, 48_001, 0.69, 61, 0.011692],
    [undefined, 2_000, 36, 2, 0.02],
  ];
  for (const [delay, exec, price, billed, cost] of rows)
    assert.deepEqual(attemptCost(delay, exec, price), { billedS: billed, costUsd: cost });
  assert.equal(utcDayStart(Date.UTC(2026, 11, 1, 23, 59)), Date.UTC(2026, 11, 1));
});

test('worker-comfyui errors: validation and missing nodes/models are permanent, a lost worker is not', () => {
  assert.equal(isPermanentWorkerError('Workflow validation failed:\n• Node 4 (errors): ckpt_name not in list'), true);
  assert.equal(isPermanentWorkerError("Missing 'workflow' parameter"), true);
  assert.equal(isPermanentWorkerError('worker exited unexpectedly'), false);
  assert.equal(isPermanentWorkerError('Workflow execution error: Node Type: KSampler, Message: CUDA error'), false);
});

test('Retry-After: seconds or an HTTP date, in ms', () => {
  assert.equal(parseRetryAfter('3', 0), 3000);
  assert.equal(parseRetryAfter(null, 0), null);
  assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 4_000), 6_000);
});
