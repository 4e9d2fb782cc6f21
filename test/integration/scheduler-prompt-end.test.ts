/**
 * A prompt's end as a real server orders it (comfyui-protocol.md §3 "History timing"): the
 * simulator writes the history entry 20–40 ms after `execution_success`, and the engine polls only
 * every 5 s. No prompt may wait for that poll: every gap between consecutive prompts on the
 * instance, measured on the simulator's own event times, stays under the poll interval. Counted,
 * not timed against a bound on the engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gapsBetween, instrumentSim, SimEventLog } from '../bench/lib/sim-events.js';
import { farmFor } from '../helpers/farm.js';

const HISTORY_POLL_MS = 5_000;

test('with a wide history window and a 5 s poll, 8 prompts back to back finish and none waits for the poll', async (ctx) => {
  const farm = await farmFor(ctx, {
    instances: [{ duration: { fixedMs: 50 }, historyDelayMs: [20, 40] }],
    config: { historyPollMs: HISTORY_POLL_MS },
  });
  const log = new SimEventLog();
  instrumentSim(farm.sims[0]!, 0, log);
  const ids = await farm.importJobs(Array.from({ length: 8 }, (_, i) => ({ id: `end${i}` })));
  const waitedForPoll = () => gapsBetween(log.take(false), 'E', 'S').some((ms) => ms >= HISTORY_POLL_MS);
  const done = async () => (await Promise.all(ids.map((id) => farm.job(id)))).every((v) => v.state === 'completed');
  // Stops at the first gap that waited for a poll, so a regression fails on the count below.
  await farm.waitFor(
    'all 8 jobs completed (or a gap as long as the poll)',
    async () => waitedForPoll() || (await done()),
    60_000,
  );
  const events = log.take(false);
  // The real order was there to handle: each history entry was written after its success message.
  const windows = gapsBetween(events, 'E', 'H');
  assert.ok(
    windows.every((ms) => ms >= 19),
    `history written 20–40 ms after success: ${windows.join(', ')}`,
  );
  const gaps = gapsBetween(events, 'E', 'S');
  assert.deepEqual(
    gaps.filter((ms) => ms >= HISTORY_POLL_MS),
    [],
    `gaps between prompts (ms): ${gaps.map((g) => g.toFixed(1)).join(', ')}`,
  );
  assert.equal(gaps.length, 7, 'one gap between each two consecutive prompts');
  assert.ok(await done(), 'all 8 completed');
});
