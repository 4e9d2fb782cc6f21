/**
 * The cloud burst on a PostgreSQL farm shared by several engines (issue 27, item 6: computed
 * farm-wide, not per engine). Two real Engines in this process on one throwaway PostgreSQL: A
 * drives the two LAN GPUs (simulators), B holds the RunPod endpoint (the RunPod simulator), each
 * pinned there. A rush job bursts to the cloud at once only while no LAN slot on the whole farm is
 * free for it — B, with no LAN workstation of its own, must see A's idle GPU.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, test, type TestContext } from 'node:test';
import type { Engine } from '../../electron/engine/engine.js';
import type { SchedulerConfig } from '../../electron/engine/settings/farm-config.js';
import { startSimInstance } from '../simulator/index.js';
import { startRunpodSim, type RunpodSim } from '../simulator/runpod/server.js';
import { addSimEndpoint, SIM_KEY } from '../helpers/cloud-farm.js';
import { CONFIG as FARM_CONFIG, farmEngines, held, importKeyframes, leasesOf } from '../helpers/engines-farm.js';
import { FIXTURE_TEMPLATES, waitOnEngine } from '../helpers/farm.js';
import { openTestStore, testPostgres } from '../helpers/test-store.js';

after(async () => (await testPostgres()).close());

/** No prefetch: a busy GPU takes nothing behind its prompt, so "all busy" means no LAN place at all. */
const CONFIG: Partial<SchedulerConfig> = { ...FARM_CONFIG, runpodPollMs: 40, prefetch: false };

interface BurstFarm {
  a: Engine;
  b: Engine;
  lan: string[];
  endpoint: string;
  cloud: RunpodSim;
  logs: string[];
}

/**
 * One farm: two LAN GPUs whose prompts take `lanMs`, pinned to A; one RunPod endpoint pinned to B.
 * burst_after_s is 10 min, so within a test only the rush rule sends a job to the cloud.
 */
async function burstFarm(ctx: TestContext, lanMs: number): Promise<BurstFarm> {
  const store = await openTestStore('postgres');
  const url = store.databaseUrl as string;
  const sims = await Promise.all(
    [0, 1].map((n) => startSimInstance({ name: `sim-${n}`, duration: { fixedMs: lanMs } })),
  );
  const cloud = await startRunpodSim({ apiKey: SIM_KEY, endpointId: 'ep-0', comfy: { duration: { fixedMs: 200 } } });
  const { logs, make } = farmEngines(ctx, url, { RUNPOD_API_KEY: SIM_KEY }, () =>
    Promise.all([...sims.map((s) => s.close()), cloud.close()]),
  );
  const a = make();
  const b = make();
  await a.call('templates.add', {
    content: readFileSync(resolve(FIXTURE_TEMPLATES, 'txt2img.json'), 'utf8'),
    fileName: 'txt2img.json',
  });
  await a.call('settings.set', { key: 'burst_budget_usd_per_day', value: 5 });
  await a.call('settings.set', { key: 'burst_after_s', value: 600 });
  const lan: string[] = [];
  for (const [n, sim] of sims.entries())
    lan.push((await a.call('instances.add', { name: `sim-${n}`, url: sim.url, tags: [], maxConcurrency: 1 })).id);
  const endpoint = (await addSimEndpoint(a, 'cloud-0', cloud)).id;
  a.startScheduler(CONFIG);
  b.startScheduler(CONFIG);
  // Each engine is on record once its scheduler runs: the pins move the workstations at the next renewal.
  for (const id of lan) await a.call('instances.pin', { id, engine: leasesOf(a).identity.id });
  await a.call('instances.pin', { id: endpoint, engine: leasesOf(b).identity.id });
  const farm = { a, b, lan, endpoint, cloud, logs };
  await waitFor(farm, 'A to drive both GPUs and B the endpoint', () => {
    return held(a).join() === [...lan].sort().join() && held(b).join() === endpoint;
  });
  // B judges A's GPUs by its own probes and node lists (scheduler/lan-elsewhere.ts): ready in B's
  // eyes too, or a first probe of B's lost to a loaded machine reads as "no LAN slot free" and the
  // rush job bursts (seen at load 10).
  for (const [name, e] of [
    ['A', a],
    ['B', b],
  ] as const)
    await waitFor(
      farm,
      `both GPUs ready for work as ${name} sees them`,
      () =>
        (e.scheduler?.readiness() ?? []).filter((r) => lan.includes(r.id) && r.dispatchable && r.nodeListKnown)
          .length === 2,
    );
  return farm;
}

function waitFor(farm: BurstFarm, what: string, p: () => boolean | Promise<boolean>, ms = 20_000) {
  return waitOnEngine(farm.a, what, p, ms, () => `logs:\n${farm.logs.slice(-20).join('\n')}`);
}

/** Where the job's attempt runs once it is running (its workstation's id). */
async function runningOn(farm: BurstFarm, id: string): Promise<string> {
  await waitFor(farm, `job ${id} to run`, async () => (await farm.a.call('jobs.get', { id })).state === 'running');
  return farm.a.db.one<{ instance_id: string }>('SELECT instance_id FROM attempts WHERE job_id = ?', id)
    ?.instance_id as string;
}

test('a rush job does not burst to RunPod while a GPU another engine drives is free for it; with that engine’s GPUs all busy it bursts at once', {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await burstFarm(ctx, 20_000);
  const { a, b, lan, endpoint, cloud } = farm;
  // One of A's GPUs renders a long job; the other is idle.
  const [long] = (await importKeyframes(a, 1, 'long')) as [string];
  const busy = await runningOn(farm, long);

  // Imported through B, the endpoint's holder: its own pass weighs the rush job first, and must see A's idle GPU.
  const [rush] = (await importKeyframes(b, 1, 'rush', 'rush')) as [string];
  const on = await runningOn(farm, rush);
  assert.equal(
    on,
    lan.find((id) => id !== busy),
    'the rush job runs on the idle LAN GPU another engine drives',
  );
  assert.equal(cloud.runCalls(), 0, 'nothing was sent to RunPod');

  // Now both of A's GPUs are busy: the next rush job goes to the cloud at once (burst_after_s is 10 min).
  const [second] = (await importKeyframes(a, 1, 'rush2', 'rush')) as [string];
  assert.equal(await runningOn(farm, second), endpoint, 'with no LAN slot free on the farm the rush job bursts');
  await waitFor(farm, 'B to send it to RunPod', () => cloud.runCalls() === 1);
});
