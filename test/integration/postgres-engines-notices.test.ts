/**
 * Wake-ups across engines on one PostgreSQL database (#27 item 4): engine B runs the farm (its
 * scheduler, real simulators on loopback), engine A is another Engine on the same database without
 * a scheduler (a one-shot command, a host that only shows the farm). B's periodic passes are set a
 * minute apart (probe interval 60 s), so only A's notice can explain B acting within a second.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import type { Engine } from '../../electron/engine/engine.js';
import { farmFor } from '../helpers/farm.js';
import type { SimInstanceOptions } from '../simulator/index.js';
import { testPostgres } from '../helpers/test-store.js';
import { importThrough, secondEngine } from '../helpers/two-engines.js';
import { waitUntil } from '../helpers/wait.js';

after(async () => (await testPostgres()).close());

/** B's periodic passes (probes, the settings check, blocked jobs) a minute apart: only a wake-up is fast. */
const SLOW_POLL = { probeIntervalMs: 60_000 };

/**
 * Engine B running the farm on one simulator, every simulator dispatchable, then B's periodic passes
 * a minute apart. Probed at the helpers' fast pace until ready: a first probe lost to a loaded
 * machine (B's own event loop was seen stalled 2.2 s, so its 1 s deadline ran out) is tried again
 * 200 ms later, where at a minute's interval it left the simulator out for the rest of the test.
 */
async function idleFarm(ctx: Parameters<typeof farmFor>[0], sim: SimInstanceOptions = { duration: { fixedMs: 50 } }) {
  const farm = await farmFor(ctx, { instances: [sim], store: 'postgres' });
  const ready = () => farm.engine.scheduler?.readiness() ?? [];
  await farm.waitFor(
    'the simulators to be dispatchable',
    () => ready().every((r) => r.dispatchable && r.nodeListKnown),
    60_000,
  );
  const slowFrom = Date.now();
  await farm.engine.call('settings.set', { key: 'probe_interval_s', value: SLOW_POLL.probeIntervalMs / 1000 });
  // The passes armed at the fast pace run once more and re-arm a minute apart: done once every simulator was probed since.
  await farm.waitFor('a probe at the slow pace', () => ready().every((r) => (r.probedAt ?? 0) > slowFrom), 10_000);
  return farm;
}

function claimsOf(engine: Engine): Map<string, number> {
  const at = new Map<string, number>();
  const scheduler = engine.scheduler;
  assert.ok(scheduler, 'engine B runs the farm');
  scheduler.onDispatch = (jobId) => {
    if (!at.has(jobId)) at.set(jobId, performance.now());
  };
  return at;
}

test('an import committed through engine A wakes engine B at once: the job is claimed on an idle GPU within 1 s, with B polling once a minute', {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await idleFarm(ctx);
  const a = secondEngine(ctx, farm);
  const claimed = claimsOf(farm.engine);
  const delays: number[] = [];
  for (let i = 0; i < 5; i++) {
    const [id] = await importThrough(a, [`wake${i}`]);
    const committed = performance.now();
    assert.ok(id);
    await waitUntil(() => claimed.has(id), { what: `job ${id} to be claimed by engine B`, timeoutMs: 5_000 });
    delays.push((claimed.get(id) as number) - committed);
    await farm.waitForStates([id], ['completed'], 10_000);
  }
  console.log(`commit (engine A) → claim (engine B): ${delays.map((d) => `${d.toFixed(1)} ms`).join(', ')}`);
  // The median of five: a claim late because B's event loop stalled (a loaded machine's; 2.2 s was
  // seen) says nothing about the wake-up. Without the wake-up no claim comes before B's next pass, a
  // minute away, and the wait for each claim above (5 s) fails.
  const median = [...delays].sort((x, y) => x - y)[2] as number;
  assert.ok(
    median < 1_000,
    `the median claim came ${median.toFixed(0)} ms after the commit (B's own pass is 60 s away)`,
  );
  assert.ok((farm.engine.notices?.inbox.counts.heard ?? 0) >= 5, 'B heard A');
});

test('a farm pause and a settings change made through engine A reach engine B at once', {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await idleFarm(ctx, { script: ['hang', 'hang'] });
  const a = secondEngine(ctx, farm);
  const b = farm.engine;
  const pausedSeen: string[] = [];
  b.events.on('farm.changed', ({ farm: f }) => pausedSeen.push(f.state));

  // Each within 10 s, where B's own check of the farm's rows is 60 s away.
  await a.call('farm.pause', { by: 'engine A' });
  await waitUntil(() => b.scheduler?.farmState === 'paused', { what: "B's farm to pause", timeoutMs: 10_000 });
  assert.ok(pausedSeen.includes('paused'), "B's clients were told (farm.changed)");
  await a.call('farm.resume', {});
  await waitUntil(() => b.scheduler?.farmState === 'running', { what: "B's farm to resume", timeoutMs: 10_000 });

  // A stall timeout set through A applies to the attempt B is running (B checks its settings rows only every 60 s).
  const [id] = await importThrough(a, ['stall']);
  assert.ok(id);
  await farm.waitFor('the prompt to hang on the server', async () => (await farm.job(id)).state === 'running');
  await a.call('settings.set', { key: 'stall_timeout_s', value: 1 });
  const [v] = await farm.waitForStates([id], ['timeout_kill', 'failed_retryable', 'queued'], 10_000);
  assert.match(v?.stateReason ?? '', /no progress for 1 s/);
});

test("engine B's job changes reach engine A's event bus (A's UI sees jobs it does not run)", {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await idleFarm(ctx);
  const a = secondEngine(ctx, farm);
  a.listenToOtherEngines();
  const seen = new Map<string, string[]>();
  a.events.on('job.changed', ({ job }) => seen.set(job.id, [...(seen.get(job.id) ?? []), job.state]));
  // Imported through B: A learns of the job, and of its states as B's farm takes it through them.
  const [id] = await farm.importJobs([{ id: 'seen-by-a' }]);
  assert.ok(id);
  await farm.waitForStates([id], ['completed'], 10_000);
  await waitUntil(() => seen.get(id)?.includes('completed'), { what: 'A to see the job completed', timeoutMs: 5_000 });
  // A reads each named job back from the store when it hears of it: it sees the state it is in then.
  console.log(`engine A saw ${id}: ${seen.get(id)?.join(' → ')}`);
  // No hooks ran on A for B's job (B runs them): A's announcements of heard jobs are events only.
  assert.equal(a.notices?.outbox.sent ?? 0, 0, 'A, which changed nothing, told nothing');
});

test('an engine nobody listens to builds no views of the jobs other engines change; once a client listens it shows them', {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await idleFarm(ctx);
  const a = secondEngine(ctx, farm);
  a.listenToOtherEngines();
  const told = farm.engine.notices?.outbox;
  const heard = a.notices?.inbox;
  assert.ok(told && heard);
  // B's notices from before A was there (its probe interval set in idleFarm) were told to no one.
  const sentBefore = told.sent;
  const ids = await farm.importJobs([{ id: 'unseen-1' }, { id: 'unseen-2' }]);
  await farm.waitForStates(ids, ['completed'], 10_000);
  // Every notice B sent since, up to the completions, has reached A (B's notices are all A hears).
  const sent = told.sent - sentBefore;
  assert.ok(sent > 0, 'B told of the jobs');
  await waitUntil(() => heard.counts.heard >= sent, { what: "A to hear B's notices", timeoutMs: 10_000 });
  assert.equal(a.heardJobViews, 0, `A heard ${heard.counts.heard} notices with no one listening and read no job back`);

  // A client subscribes (a UI, the event socket): B's next job is shown there, read back as before.
  const seen: string[] = [];
  a.events.on('job.changed', ({ job }) => seen.push(`${job.id} ${job.state}`));
  const [id] = await farm.importJobs([{ id: 'seen-1' }]);
  assert.ok(id);
  await farm.waitForStates([id], ['completed'], 10_000);
  await waitUntil(() => seen.includes(`${id} completed`), { what: 'A to show the job completed', timeoutMs: 5_000 });
  assert.ok(a.heardJobViews > 0);
  assert.ok(!seen.some((s) => s.startsWith('unseen')), 'the jobs heard before are not replayed');
});

test('a cancel made through engine A interrupts the prompt engine B follows, at once (not when it ends)', {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await idleFarm(ctx, { duration: { fixedMs: 30_000 } });
  const a = secondEngine(ctx, farm);
  const [id] = await farm.importJobs([{ id: 'cut-by-a' }]);
  assert.ok(id);
  const sim = farm.sims[0];
  assert.ok(sim);
  await farm.waitFor('the prompt to run on the workstation', () => sim.counts(id).received === 1);
  const cancelled = performance.now();
  await a.call('jobs.cancel', { ids: [id] });
  // A has no runner for it: only B, hearing A's notice, can interrupt it — within seconds, where the
  // prompt runs 30 s and B's own checks are a minute apart.
  await farm.waitFor('B to interrupt the cancelled prompt', () => sim.counts(id).interrupted === 1, 10_000);
  console.log(`cancel (engine A) → interrupt on B's workstation: ${(performance.now() - cancelled).toFixed(0)} ms`);
  assert.equal(sim.counts(id).executed, 0, 'the cancelled prompt did not render');
  const [job] = await farm.waitForStates([id], ['cancelled'], 5_000);
  assert.equal(job?.state, 'cancelled');
});

test('a lost listening connection (pg_terminate_backend) is caught by the re-read: B still claims what A imported', {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await idleFarm(ctx);
  const a = secondEngine(ctx, farm);
  const claimed = claimsOf(farm.engine);
  const admin = new pg.Client({ connectionString: farm.store.databaseUrl });
  await admin.connect();
  ctx.after(() => admin.end());
  // Only B listens so far (A has told nothing yet): its notice connection is the one named so.
  const killed = await admin.query<{ pid: number }>(
    "SELECT pg_terminate_backend(pid), pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'shotfarm-notices'",
  );
  assert.equal(killed.rowCount, 1, "B's listening connection was found and ended");
  const [id] = await importThrough(a, ['after-loss']);
  assert.ok(id);
  await waitUntil(() => claimed.has(id), {
    what: 'B to claim the job imported while it was not listening',
    timeoutMs: 10_000,
  });
  await waitUntil(() => (farm.engine.notices?.inbox.counts.missed ?? 0) >= 1, {
    what: 'B to have re-read after listening again',
    timeoutMs: 10_000,
  });
  // Listening again: the next import is heard as usual.
  const heard = farm.engine.notices?.inbox.counts.heard ?? 0;
  const [next] = await importThrough(a, ['heard-again']);
  assert.ok(next);
  await waitUntil(() => claimed.has(next), { what: 'B to claim the next import', timeoutMs: 5_000 });
  // Heard, possibly just after the claim: B's own pass when the job before ended may claim it first.
  await waitUntil(() => (farm.engine.notices?.inbox.counts.heard ?? 0) > heard, {
    what: 'B to hear the next import as a notice',
    timeoutMs: 5_000,
  });
});

test('a change no notice told (written by another program, or its sender died before its NOTIFY) is announced by the periodic re-read', {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await farmFor(ctx, { instances: [], store: 'postgres', config: SLOW_POLL });
  const [id] = await farm.importJobs([{ id: 'unheard' }]);
  assert.ok(id);
  // The import was told (named): the re-read that covers it passes first, so the hold below is the only unheard change.
  const inbox = farm.engine.notices?.inbox;
  assert.ok(inbox);
  const passes = inbox.counts.rereads;
  await waitUntil(() => inbox.counts.rereads >= passes + 2, {
    what: 'two re-reads after the import',
    timeoutMs: 10_000,
  });
  const caught = inbox.counts.caught;
  const seen: string[] = [];
  farm.engine.events.on('job.changed', ({ job }) => {
    if (job.id === id) seen.push(job.state);
  });
  // A hold written as the state door writes it, by a connection that tells no one.
  const other = new pg.Client({ connectionString: farm.store.databaseUrl });
  await other.connect();
  ctx.after(() => other.end());
  await other.query('BEGIN');
  await other.query("UPDATE jobs SET state = 'held' WHERE id = $1", [id]);
  await other.query(
    "INSERT INTO job_events (job_id, attempt_id, from_state, to_state, reason, actor, at) VALUES ($1, NULL, 'queued', 'held', 'held elsewhere', 'test', $2)",
    [id, Date.now()],
  );
  await other.query('COMMIT');
  await waitUntil(() => seen.includes('held'), { what: 'the re-read to announce the hold', timeoutMs: 10_000 });
  assert.equal(inbox.counts.caught, caught + 1, 'the re-read caught exactly the unheard hold');
});

/**
 * The burst's size: five times a notice's cap of named jobs (100), so the changes made at once must
 * be said as one "re-read". 2,000 took 32 s on a quiet machine and over 190 s at load 10–15 (each
 * bump is ~10 ms of round trips on PostgreSQL), which ran the file past its 300 s limit.
 */
const BURST = 500;

test('a burst of 500 job changes through engine A makes few NOTIFYs (at most one per 10 ms window), and engine B hears every job', {
  timeout: 180_000,
}, async (ctx) => {
  const farm = await farmFor(ctx, { instances: [], store: 'postgres', config: SLOW_POLL });
  const ids = await farm.importJobs(
    Array.from({ length: BURST }, (_, i) => ({ id: `b${String(i).padStart(4, '0')}` })),
  );
  assert.equal(ids.length, BURST);
  const a = secondEngine(ctx, farm);
  const b = farm.engine;
  const outbox = a.notices?.outbox;
  const inbox = b.notices?.inbox;
  assert.ok(outbox && inbox);
  const seen = new Set<string>();
  let refetches = 0;
  b.events.on('job.changed', ({ job }) => seen.add(job.id));
  b.events.on('jobs.bulkChanged', () => refetches++);

  // The changes one request at a time, each on its own turn of the event loop (as requests arrive).
  const sentBefore = outbox.sent;
  const t0 = performance.now();
  for (const id of ids) {
    await a.call('jobs.bump', { ids: [id], priority: 'high' });
    await new Promise((r) => setImmediate(r));
  }
  const elapsed = performance.now() - t0;
  await waitUntil(() => seen.size === ids.length || refetches > 0, { what: 'B to hear the bumps', timeoutMs: 10_000 });
  const oneByOne = outbox.sent - sentBefore;
  await waitUntil(() => inbox.counts.heard >= oneByOne, { what: 'B to hear every notice', timeoutMs: 10_000 });

  // The changes at once (a bulk action as separate requests in one batch): one notice says "re-read".
  const sentMid = outbox.sent;
  const refetchesMid = refetches;
  await Promise.all(ids.map((id) => a.call('jobs.bump', { ids: [id], priority: 'low' })));
  await waitUntil(() => refetches > refetchesMid, { what: 'B to refetch after the bulk', timeoutMs: 10_000 });
  const together = outbox.sent - sentMid;

  console.log(
    `${BURST} bumps one by one in ${(elapsed / 1000).toFixed(1)} s: ${oneByOne} NOTIFYs (B heard ${inbox.counts.heard}, saw ${seen.size} jobs, ${refetches} refetches); ${BURST} at once: ${together} NOTIFY`,
  );
  assert.ok(
    oneByOne <= Math.ceil(elapsed / 10) + 2,
    `${oneByOne} NOTIFYs in ${elapsed.toFixed(0)} ms: at most one per 10 ms`,
  );
  assert.ok(seen.size === ids.length || refetches > 0, 'B named every job, or refetched');
  assert.ok(together <= 2, `${together} NOTIFYs for ${BURST} changes in one turn`);
});

test("a one-shot engine's change is told before it closes: B hears it as a notice", {
  timeout: 60_000,
}, async (ctx) => {
  const farm = await farmFor(ctx, { instances: [], store: 'postgres', config: SLOW_POLL });
  const [id] = await farm.importJobs([{ id: 'one-shot' }]);
  assert.ok(id);
  const inbox = farm.engine.notices?.inbox;
  assert.ok(inbox);
  const held = new Promise<void>((r) =>
    farm.engine.events.on('job.changed', ({ job }) => {
      if (job.id === id && job.state === 'held') r();
    }),
  );
  const heard = inbox.counts.heard;
  // As `shotfarm --database URL jobs hold` from another host: an engine opened, one call, closed at once.
  const a = secondEngine(ctx, farm);
  await a.call('jobs.hold', { ids: [id] });
  await a.close();
  await waitUntil(() => inbox.counts.heard > heard, { what: "B to hear the closed engine's notice", timeoutMs: 5_000 });
  await held;
});
