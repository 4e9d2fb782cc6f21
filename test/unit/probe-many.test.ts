import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mapLimited, PROBE_PARALLEL } from '../../electron/engine/health/probe-many.js';

test('probing many runs at most 32 at once and answers in the order asked', async () => {
  let running = 0;
  let most = 0;
  const gates: (() => void)[] = [];
  const done = mapLimited(
    Array.from({ length: 200 }, (_, i) => i),
    PROBE_PARALLEL,
    async (i) => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => gates.push(resolve));
      running--;
      return i * 2;
    },
  );
  // Release one waiting probe at a time, each after the pool refilled: the pool never exceeds its limit.
  for (let released = 0; released < 200; released++) {
    while (gates.length === 0) await new Promise((r) => setImmediate(r));
    assert.ok(running <= PROBE_PARALLEL);
    gates.shift()?.();
  }
  assert.deepEqual(
    await done,
    Array.from({ length: 200 }, (_, i) => i * 2),
  );
  assert.equal(PROBE_PARALLEL, 32);
  assert.equal(most, 32);
});
