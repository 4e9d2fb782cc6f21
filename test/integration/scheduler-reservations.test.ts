/**
 * Reservations (SPEC §3, the issue "A rush job can wait behind reservations"): only a job too large
 * for every slot that frees gets a workstation kept for it, and a reservation never holds back a job
 * of higher priority. On real SQLite and simulated servers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FAST, startFarm, type Farm } from '../helpers/farm.js';
import { addTemplateVariant } from '../helpers/template-variants.js';

const dispatchOrder = (farm: Farm, since = 0): string[] =>
  (
    farm.engine.db.all('SELECT job_id FROM attempts WHERE dispatched_at >= ? ORDER BY dispatched_at, rowid', since) as {
      job_id: string;
    }[]
  ).map((r) => r.job_id);

test('a rush job on a saturated farm starts in the first slot that frees, even when every queued job waited past the starvation time', async () => {
  // The scenario: 2 GPUs, 40 low jobs all older than the starvation time. Reserving a GPU
  // for each of the oldest (they fit anywhere) made the rush job wait behind one per GPU.
  // Prompts outlast the starvation check's period (a quarter of the starvation time, at least 0.25 s),
  // as 8–15 minute renders outlast its 5 s on a real farm.
  // One prompt per GPU at a time (prefetch off): the scenario is the reservations' decision.
  const farm = await startFarm({
    instances: [{ duration: { fixedMs: 1500 } }, { duration: { fixedMs: 1500 } }],
    config: { starvationMs: 200, prefetch: false },
  });
  try {
    await farm.importJobs(Array.from({ length: 40 }, (_, i) => ({ id: `low${i}`, priority: 'low' as const })));
    // Both GPUs busy since the last decision pass for longer than the check's period: the import's
    // pass then runs the check on a saturated farm, every queued low job past the starvation time.
    const lastDispatch = () => farm.engine.db.one('SELECT COUNT(*) AS n, MAX(dispatched_at) AS at FROM attempts');
    await farm.waitFor('both GPUs busy for 300 ms', () => {
      const { n, at } = lastDispatch() as { n: number; at: number | null };
      return n === 2 && at !== null && at <= Date.now() - 300;
    });
    const [rush] = await farm.importJobs([{ id: 'client-fix', priority: 'rush' }]);
    const enqueued = (await farm.job(rush!)).enqueuedAt;
    await farm.waitForStates([rush!], ['completed'], 30_000);
    assert.equal(dispatchOrder(farm, enqueued)[0], rush, 'the first dispatch after the rush import was the rush job');
  } finally {
    await farm.close();
  }
});

test('one 20 GB job among many 8 GB jobs on 24 GB GPUs: after waiting it gets a GPU kept for it, and starts', async () => {
  // Two 8 GB jobs share a 24 GB GPU; the 20 GB job fits only an empty one. Each slot that frees is
  // refilled by a small job behind it, so without a reservation it would run last.
  const gpu = (seed: number) => ({
    vramTotalGb: 24,
    concurrency: 2,
    duration: { fixedMs: 100, randomMs: [0, 120] as [number, number], seed },
  });
  const farm = await startFarm({ instances: [gpu(1), gpu(2)], config: { starvationMs: 300 }, start: false });
  try {
    await addTemplateVariant(farm.engine, 'txt2img', { name: 'small8', vram_gb: 8 });
    await addTemplateVariant(farm.engine, 'txt2img', { name: 'big20', vram_gb: 20 });
    farm.engine.startScheduler({ ...FAST, starvationMs: 300 });
    const first = await farm.importJobs(Array.from({ length: 4 }, (_, i) => ({ id: `a${i}`, template: 'small8' })));
    await farm.waitFor(
      'four small jobs running',
      async () => (await farm.engine.call('jobs.list', { filter: { states: ['running', 'completed'] } })).total >= 4,
    );
    const [big] = await farm.importJobs([{ id: 'big', template: 'big20' }]);
    const rest = await farm.importJobs(Array.from({ length: 60 }, (_, i) => ({ id: `b${i}`, template: 'small8' })));
    await farm.waitForStates([...first, big!, ...rest], ['completed'], 60_000);
    const order = dispatchOrder(farm);
    const position = order.indexOf(big!);
    assert.ok(
      position < order.length - 15,
      `the big job ran at position ${position + 1} of ${order.length}, not after the stream`,
    );
  } finally {
    await farm.close();
  }
});
