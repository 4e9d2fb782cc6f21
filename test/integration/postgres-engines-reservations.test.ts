/**
 * No starvation by size on a PostgreSQL farm shared by several engines (issue 27, SPEC §3): a job
 * too large for the slots that free up gets one workstation kept free for it — one on the whole
 * farm, not one per engine. Two real Engines in this process on one throwaway PostgreSQL, one GPU
 * each (simulators on loopback); the lease rows say which workstation is kept free, and for whom.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { held, importShots, leasesOf, sizeFarm, waitFor } from '../helpers/engines-farm.js';
import { testPostgres } from '../helpers/test-store.js';

after(async () => (await testPostgres()).close());

test('two engines keep one workstation on the farm free for a job starved by its size, and it starts there', {
  timeout: 90_000,
}, async (ctx) => {
  // Two 24 GB GPUs with two slots each, one per engine, full of 8 GB jobs; a 20 GB job fits only an
  // emptied GPU, and the small jobs queued behind it refill every slot that frees — it starves
  // unless a GPU is kept free for it. Both engines see it starving.
  const { farm, a, b } = await sizeFarm(ctx, 3_000); // both GPUs full of small jobs
  const importList = (ids: string[], template: string) => importShots(a, ids, template);
  const [big] = (await importList(['big'], 'big20')) as [string];
  await importList(
    Array.from({ length: 8 }, (_, i) => `after${i}`),
    'small8',
  );

  // The lease rows, read all along: how many workstations are kept free for the big job at once (live leases only).
  const keptNow = (): string[] =>
    a.db
      .all<{ instance_id: string }>(
        `SELECT instance_id FROM workstation_leases WHERE reserved_job = ? AND reserved_by = engine_id
        AND expires_at >= CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)`,
        big,
      )
      .map((r) => r.instance_id);
  let most = 0;
  const kept = new Set<string>();
  const sample = setInterval(() => {
    const now = keptNow();
    most = Math.max(most, now.length);
    for (const id of now) kept.add(id);
  }, 20);
  ctx.after(() => clearInterval(sample));

  await waitFor(
    a,
    farm,
    'the big job to start',
    async () => (await a.call('jobs.get', { id: big })).state !== 'queued',
    30_000,
  );
  clearInterval(sample);
  assert.equal(most, 1, 'exactly one workstation on the farm was kept free for the big job at a time');
  assert.equal(kept.size, 1, `the same one all along (${[...kept]})`);
  const [station] = [...kept] as [string];
  const ranOn = a.db.one<{ instance_id: string }>(
    'SELECT instance_id FROM attempts WHERE job_id = ?',
    big,
  )?.instance_id;
  assert.equal(
    ranOn,
    station,
    `it started on the workstation kept free for it; logs:\n${farm.logs.slice(-30).join('\n')}`,
  );
  const driver = held(a).includes(station) ? a : b;
  const reserving = farm.logs.filter((l) => l.includes(`for job ${big}`) && l.includes('reserving'));
  assert.equal(reserving.length, 1, reserving.join('\n'));
  assert.ok(
    reserving[0]?.startsWith(`[engine ${farm.engines.indexOf(driver)}]`),
    `made by ${leasesOf(driver).identity.id}`,
  );
});
