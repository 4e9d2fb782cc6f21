/**
 * RunPod endpoints on a PostgreSQL farm shared by several engines (issue 27): an endpoint is leased
 * like a LAN workstation. Real Engines in this process (each its own data folder) on one throwaway
 * PostgreSQL and real RunPod simulators on loopback: two engines split two endpoints one each and
 * only the engine holding an endpoint sends it work; a graceful stop hands an endpoint with a job
 * running on RunPod over, and the engine taking it follows that job by its RunPod id (no second
 * /run); an engine frozen past its lease is adopted the same way and its own end is refused; the
 * day's spend that gates the burst is the farm's, whichever engine's endpoint spent it; only the
 * engine holding an endpoint asks it for /health (each engine has a RunPod key of its own here, so
 * the simulator tells whose requests it answers), unless no engine holds it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, test, type TestContext } from 'node:test';
import type { Engine } from '../../electron/engine/engine.js';
import type { SchedulerConfig } from '../../electron/engine/settings/farm-config.js';
import { startRunpodSim, type RunpodSim, type RunpodSimOptions } from '../simulator/runpod/server.js';
import { addSimEndpoint, SIM_KEY } from '../helpers/cloud-farm.js';
import { FIXTURE_TEMPLATES, waitOnEngine } from '../helpers/farm.js';
import {
  CONFIG as FARM_CONFIG,
  farmEngines,
  held,
  importKeyframes,
  LEASE_MS,
  leasesOf,
} from '../helpers/engines-farm.js';
import { openTestStore, testPostgres } from '../helpers/test-store.js';

after(async () => (await testPostgres()).close());

const CONFIG: Partial<SchedulerConfig> = { ...FARM_CONFIG, runpodPollMs: 40 };

/** Engine N's RunPod key (the simulators accept each). */
const engineKey = (n: number): string => (n === 0 ? SIM_KEY : `${SIM_KEY}-engine${n}`);

interface CloudEngines {
  sims: RunpodSim[];
  /** Endpoint ids, in the sims' order. */
  endpoints: string[];
  engines: Engine[];
  engine(): Engine;
  logs: string[];
  importJobs(count: number, prefix: string): Promise<string[]>;
}

/** One PostgreSQL farm with only RunPod endpoints (one simulator each) and its first engine running. */
async function cloudEngines(
  ctx: TestContext,
  sims: RunpodSimOptions[],
  o: {
    pricePerHourUsd?: number;
    budgetUsd?: number;
    executionTimeoutS?: number;
    config?: Partial<SchedulerConfig>;
  } = {},
): Promise<CloudEngines> {
  const config = { ...CONFIG, ...o.config };
  const store = await openTestStore('postgres');
  const url = store.databaseUrl as string;
  const started = await Promise.all(
    sims.map((s, n) =>
      startRunpodSim({ apiKey: SIM_KEY, moreKeys: [1, 2].map(engineKey), endpointId: `ep-${n}`, ...s }),
    ),
  );
  // Each engine has its own data folder (its own key file): the key comes from the environment,
  // one per engine, so the simulators tell whose requests they answer.
  const { engines, logs, make } = farmEngines(
    ctx,
    url,
    (n) => ({ RUNPOD_API_KEY: engineKey(n) }),
    () => Promise.all(started.map((s) => s.close())),
  );
  const first = make();
  await first.call('templates.add', {
    content: readFileSync(resolve(FIXTURE_TEMPLATES, 'txt2img.json'), 'utf8'),
    fileName: 'txt2img.json',
  });
  await first.call('settings.set', { key: 'burst_budget_usd_per_day', value: o.budgetUsd ?? 5 });
  await first.call('settings.set', { key: 'burst_after_s', value: 0 });
  const endpoints: string[] = [];
  for (const [n, sim] of started.entries()) {
    const card = await addSimEndpoint(first, `cloud-${n}`, sim, o);
    endpoints.push(card.id);
  }
  first.startScheduler(config);
  return {
    sims: started,
    endpoints,
    engines,
    logs,
    engine() {
      const e = make();
      e.startScheduler(config);
      return e;
    },
    importJobs: (count, prefix) => importKeyframes(first, count, prefix),
  };
}

function waitFor(e: Engine, farm: CloudEngines, what: string, p: () => boolean | Promise<boolean>, ms = 20_000) {
  return waitOnEngine(e, what, p, ms, () => `logs:\n${farm.logs.slice(-20).join('\n')}`);
}

function runs(farm: CloudEngines): number {
  return farm.sims.reduce((n, s) => n + s.runCalls(), 0);
}

async function completed(e: Engine, n: number): Promise<boolean> {
  return (await e.call('farm.status', {})).jobsByState.completed === n;
}

/** The endpoints each engine follows an attempt on now (its own runners, from its cards). */
function following(e: Engine, endpoints: readonly string[]): string[] {
  return (e.scheduler?.instanceViews() ?? [])
    .filter((v) => endpoints.includes(v.id) && v.currentJobIds.length > 0)
    .map((v) => v.id);
}

/** Waits until the attempt of `id` that `e` runs has stored its RunPod job id (the job is on RunPod). */
async function runpodIdStored(e: Engine, farm: CloudEngines, id: string): Promise<void> {
  await waitFor(e, farm, 'the RunPod job id stored', () =>
    Boolean(
      e.db.one<{ runpod_job_id: string | null }>('SELECT runpod_job_id FROM attempts WHERE job_id = ?', id)
        ?.runpod_job_id,
    ),
  );
}

/**
 * The job completes through `b`, RunPod got one /run for the farm, and the one attempt — the one the
 * first engine started, followed by its RunPod id — is the one completed, with one ledger row.
 */
async function completedOnceThrough(b: Engine, farm: CloudEngines, id: string): Promise<void> {
  await waitFor(
    b,
    farm,
    'the job completed through B',
    async () => (await b.call('jobs.get', { id })).state === 'completed',
    40_000,
  );
  assert.equal(runs(farm), 1, 'no second /run');
  const attempts = b.db.all<{ outcome: string }>('SELECT outcome FROM attempts WHERE job_id = ?', id);
  assert.deepEqual(
    attempts.map((x) => x.outcome),
    ['completed'],
    'the attempt A started was the one completed (followed by its RunPod id)',
  );
  assert.equal(b.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM assets WHERE job_id = ?', id)?.n, 1);
}

test('two engines split two RunPod endpoints one each, and only the engine holding an endpoint sends it work', {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await cloudEngines(ctx, [
    { comfy: { duration: { fixedMs: 150 } } },
    { comfy: { duration: { fixedMs: 150 } } },
  ]);
  const [a] = farm.engines as [Engine];
  await waitFor(a, farm, 'the first engine to lease both endpoints', () => held(a).length === 2);
  const b = farm.engine();
  await waitFor(a, farm, 'one endpoint each', () => held(a).length === 1 && held(b).length === 1);
  assert.notDeepEqual(held(a), held(b));

  // Whichever engine follows an attempt on an endpoint is the one holding its lease, all along.
  const seen = new Map<string, Set<number>>();
  const sample = setInterval(() => {
    for (const [n, e] of [a, b].entries())
      for (const id of following(e, farm.endpoints)) {
        const by = seen.get(id) ?? new Set<number>();
        by.add(n);
        seen.set(id, by);
      }
  }, 10);
  ctx.after(() => clearInterval(sample));
  const ids = await farm.importJobs(12, 'cl');
  await waitFor(a, farm, 'every job completed', () => completed(a, 12), 60_000);
  clearInterval(sample);
  assert.equal(runs(farm), 12, 'one /run per job');
  for (const [id, by] of seen) assert.equal(by.size, 1, `endpoint ${id} was driven by one engine (${[...by]})`);
  const byEndpoint = a.db.all<{ instance_id: string; n: number }>(
    'SELECT instance_id, COUNT(*) AS n FROM attempts GROUP BY instance_id',
  );
  assert.equal(byEndpoint.length, 2, `both endpoints took jobs (${JSON.stringify(byEndpoint)})`);
  for (const id of ids)
    assert.equal(a.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM attempts WHERE job_id = ?', id)?.n, 1);

  // The cards say which engine drives each endpoint.
  const cards = await a.call('instances.list', {});
  for (const [e, id] of [
    [a, held(a)[0]],
    [b, held(b)[0]],
  ] as const)
    assert.equal(cards.find((c) => c.id === id)?.engine?.engineId, leasesOf(e).identity.id);
});

test('an engine stopped gracefully hands its endpoint over; the other follows the running RunPod job by its id, no second /run', {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await cloudEngines(ctx, [{ coldStartMs: 1_000, comfy: { duration: { fixedMs: 4_000 } } }]);
  const [a] = farm.engines as [Engine];
  await waitFor(a, farm, 'A to lease the endpoint', () => held(a).length === 1);
  const [id] = (await farm.importJobs(1, 'handover')) as [string];
  await runpodIdStored(a, farm, id);
  const b = farm.engine();
  const stoppedAt = Date.now();
  await a.close();
  await waitFor(b, farm, 'B to take the endpoint', () => held(b).length === 1, 10_000);
  ctx.diagnostic(`endpoint taken over ${Date.now() - stoppedAt} ms after the graceful stop`);
  await completedOnceThrough(b, farm, id);
});

test('an engine frozen past its lease loses its endpoint: the other adopts the RunPod job by its id, and the frozen one records nothing', {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await cloudEngines(ctx, [{ coldStartMs: 500, comfy: { duration: { fixedMs: 7_000 } } }]);
  const [a] = farm.engines as [Engine];
  await waitFor(a, farm, 'A to lease the endpoint', () => held(a).length === 1);
  const [id] = (await farm.importJobs(1, 'frozen')) as [string];
  await runpodIdStored(a, farm, id);
  const b = farm.engine();
  // A freezes: it stops renewing, while its runner goes on polling /status (a process woken from SIGSTOP).
  const frozenAt = Date.now();
  leasesOf(a).pause();
  await waitFor(b, farm, 'B to adopt the endpoint', () => held(b).length === 1, LEASE_MS * 3);
  ctx.diagnostic(`adopted ${Date.now() - frozenAt} ms after A stopped renewing (lease ${LEASE_MS} ms)`);
  await completedOnceThrough(b, farm, id);
  // A's runner saw the same COMPLETED; its end was refused by the fence, said once in its log.
  await waitFor(a, farm, 'A to say its end was left to the other engine', () =>
    farm.logs.some((l) => l.startsWith('[engine 0]') && /left to th(at|e) engine/.test(l)),
  );
  assert.deepEqual(farm.sims[0]?.cancelled(), [], 'nobody cancelled the job the other engine followed');
});

test('the day’s cloud spend is the farm’s: an endpoint driven by one engine stops bursting once another engine’s endpoint spent the budget', {
  timeout: 90_000,
}, async (ctx) => {
  // One job on either endpoint costs more than the day's budget ($1000/h, at least 1 s billed: ≥ $0.27 > $0.1).
  const farm = await cloudEngines(
    ctx,
    [{ comfy: { duration: { fixedMs: 300 } } }, { comfy: { duration: { fixedMs: 300 } } }],
    {
      pricePerHourUsd: 1_000,
      budgetUsd: 0.1,
    },
  );
  const [a] = farm.engines as [Engine];
  const b = farm.engine();
  await waitFor(a, farm, 'one endpoint each', () => held(a).length === 1 && held(b).length === 1);
  const [first] = (await farm.importJobs(1, 'spend')) as [string];
  await waitFor(a, farm, 'the first job completed', () => completed(a, 1), 30_000);
  const ranOn = a.db.one<{ instance_id: string }>('SELECT instance_id FROM attempts WHERE job_id = ?', first)
    ?.instance_id as string;
  const spender = held(a).includes(ranOn) ? a : b;
  const other = spender === a ? b : a;
  const spent = a.db.one<{ c: number }>('SELECT SUM(cost_usd) AS c FROM attempts')?.c ?? 0;
  assert.ok(spent >= 0.1, `the first job spent the budget ($${spent})`);

  // The engine whose endpoint spent nothing sees the farm's spend on its own endpoint's card and in its waits.
  const card = other.scheduler?.instanceViews().find((v) => v.id === held(other)[0]);
  assert.equal(card?.cloud?.spentTodayUsd, spent, 'its card shows the farm-wide spend');
  const [second] = (await farm.importJobs(1, 'over')) as [string];
  await waitFor(other, farm, 'the second job to wait for the budget', async () =>
    /today's cloud budget is spent/.test((await other.call('jobs.why', { id: second })).summary),
  );
  assert.equal(runs(farm), 1, 'no engine sent the second job');
  assert.equal((await other.call('jobs.get', { id: second })).state, 'queued');
});

test('an engine whose endpoint lease moved on while /run was answered cancels that RunPod job (nobody else can name it); the other waits the attempt out and runs the job once more', {
  timeout: 90_000,
}, async (ctx) => {
  // /run answers held long past the lease: the request must not time out first.
  const farm = await cloudEngines(ctx, [{ coldStartMs: 500, comfy: { duration: { fixedMs: 8_000 } } }], {
    executionTimeoutS: 5,
    config: { requestTimeoutMs: 20_000 },
  });
  const [a] = farm.engines as [Engine];
  const sim = farm.sims[0] as RunpodSim;
  await waitFor(a, farm, 'A to lease the endpoint', () => held(a).length === 1);
  sim.holdRunAnswers(true);
  const [id] = (await farm.importJobs(1, 'gap')) as [string];
  await waitFor(a, farm, 'A to send /run', () => sim.runCalls() === 1);
  // A freezes with its /run answer in flight; B takes the endpoint over.
  leasesOf(a).pause();
  const b = farm.engine();
  await waitFor(b, farm, 'B to adopt the endpoint', () => held(b).length === 1, LEASE_MS * 3);
  sim.holdRunAnswers(false);
  // A learns the id, cannot store it (the fence), and cancels the job only it can name.
  await waitFor(a, farm, 'A to cancel its unnamed RunPod job', () => sim.cancelled().length === 1);
  await waitFor(
    b,
    farm,
    'the job completed through B',
    async () => (await b.call('jobs.get', { id })).state === 'completed',
    40_000,
  );
  const attempts = b.db.all<{ outcome: string; reason: string | null; runpod_job_id: string | null }>(
    'SELECT outcome, reason, runpod_job_id FROM attempts WHERE job_id = ? ORDER BY n',
    id,
  );
  assert.equal(attempts.length, 2, JSON.stringify(attempts));
  assert.equal(attempts[0]?.runpod_job_id, null, 'the first id was never stored');
  assert.match(attempts[0]?.reason ?? '', /unknown on RunPod/);
  assert.equal(attempts[1]?.outcome, 'completed');
  assert.equal(sim.runCalls(), 2, 'the one retry, after the wait');
  const first = sim.jobs().find((j) => j.id === sim.cancelled()[0]);
  assert.equal(first?.status, 'CANCELLED', 'the unnamed job did not run on');
});

/** One engine of the farm, with the key its requests carry. */
interface Role {
  engine: Engine;
  key: string;
}

/**
 * A second engine started beside the first, which leases the farm's one endpoint: which of the two
 * drives it, once one does and the other holds nothing. Usually the first; but every engine here
 * shares this process, and starting one blocks it for seconds on a loaded machine (8.4 s was seen):
 * the first's lease may lapse meanwhile and the new one take the endpoint, as it should.
 */
async function holderAndOther(farm: CloudEngines): Promise<{ holder: Role; other: Role }> {
  const [a] = farm.engines as [Engine];
  await waitFor(a, farm, 'A to lease the endpoint', () => held(a).length === 1);
  const b = farm.engine();
  const roles = [
    { engine: a, key: engineKey(0) },
    { engine: b, key: engineKey(1) },
  ];
  await waitFor(
    b,
    farm,
    'one engine to hold the endpoint and the other nothing',
    () =>
      roles
        .map((r) => held(r.engine).length)
        .sort()
        .join() === '0,1',
  );
  const [holder, other] = held(a).length === 1 ? roles : [...roles].reverse();
  return { holder: holder as Role, other: other as Role };
}

test('only the engine holding an endpoint asks it for /health; the other reads its health from the store, and with no holder both ask', {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await cloudEngines(ctx, [{}]);
  const sim = farm.sims[0] as RunpodSim;
  const [endpoint] = farm.endpoints as [string];
  const { holder, other } = await holderAndOther(farm);
  const asked = (r: Role) => sim.healthCalls(r.key);

  // Health rounds every second (FAST): over three of them, the holder asks and the other does not
  // (counted from the holder's first round, after any request the other had in flight as holder).
  const h0 = asked(holder);
  await waitFor(holder.engine, farm, 'a health round of the holder', () => asked(holder) > h0, 10_000);
  const [h1, o1] = [asked(holder), asked(other)];
  await waitFor(holder.engine, farm, 'three more health rounds of the holder', () => asked(holder) >= h1 + 3, 10_000);
  assert.equal(asked(other), o1, 'the engine that does not hold the endpoint never asked it');
  // The engine started second, when it never held the endpoint, never asked it at all (not even at its start).
  if (other.key === engineKey(1)) assert.equal(o1, 0, 'the second engine never asked the endpoint it never held');
  // The other's card says what the holder heard: the endpoint failing its /health, read from the row the holder writes.
  sim.failNext('health', 503, 1_000);
  await waitFor(other.engine, farm, 'the other’s card to show the endpoint unhealthy', () =>
    (other.engine.scheduler?.instanceViews() ?? []).some((v) => v.id === endpoint && v.health === 'unhealthy'),
  );
  assert.equal(asked(other), o1, 'the other learned it from the store, not by asking');

  // Pinned to an engine that is not running, nobody holds the endpoint: both engines ask it.
  await holder.engine.call('instances.pin', { id: endpoint, engine: 'no-such-engine' });
  await waitFor(holder.engine, farm, 'the holder to hand the endpoint over', () => held(holder.engine).length === 0);
  await waitFor(other.engine, farm, 'the other to ask the endpoint no engine holds', () => asked(other) > o1, 10_000);
});

test('an engine that adopts an endpoint asks it for /health at once, not at its next health round', {
  timeout: 90_000,
}, async (ctx) => {
  // Health rounds 100 s apart (five probe intervals): within the test only a take asks.
  const farm = await cloudEngines(ctx, [{}], { config: { probeIntervalMs: 20_000 } });
  const sim = farm.sims[0] as RunpodSim;
  const { holder, other } = await holderAndOther(farm);
  const o0 = sim.healthCalls(other.key);
  // The holder freezes: its lease expires and the other adopts the endpoint — no notice, no change to the endpoint's row.
  leasesOf(holder.engine).pause();
  await waitFor(
    other.engine,
    farm,
    'the other to adopt the endpoint',
    () => held(other.engine).length === 1,
    LEASE_MS * 3,
  );
  await waitFor(
    other.engine,
    farm,
    'the other to ask the endpoint it drives now',
    () => sim.healthCalls(other.key) > o0,
    10_000,
  );
});
