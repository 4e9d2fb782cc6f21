/**
 * Several engines on one PostgreSQL farm (issue 27): workstations are leased, not locked. Two or
 * three real Engines in this process, each with its own data folder, share one database and real
 * simulators on loopback. They split the workstations fairly; a graceful stop hands its leases over
 * at once; an engine that stops renewing (its lease manager paused: a frozen engine, as the others
 * see it) is adopted within lease_s and its open attempt recovered without a second POST; a stale
 * engine's write after its epoch moved on is refused and changes nothing; a pinned workstation
 * stays with its engine. On SQLite a second engine is still refused.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, test } from 'node:test';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { Engine } from '../../electron/engine/engine.js';
import { fencedBatch, isLeaseLost } from '../../electron/engine/pools/attempt/lease-fence.js';
import { CommitBatch } from '../../electron/engine/store/commit-batch.js';
import { saveProgress } from '../../electron/engine/store/attempt-store.js';
import { FAST } from '../helpers/farm.js';
import {
  executed,
  held,
  importShots,
  LEASE_MS,
  leasesOf,
  received,
  sharedFarm,
  sizeFarm,
  waitFor,
} from '../helpers/engines-farm.js';
import { runCliArgs } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { testPostgres } from '../helpers/test-store.js';

after(async () => (await testPostgres()).close());

const cli = runCliArgs;

/** The time engine `n`'s loop watch (loop-stall.ts) said it was stalled, in these log lines (ms). */
function stalledSince(lines: readonly string[], n: number): number {
  const said = lines.flatMap((l) =>
    l.startsWith(`[engine ${n}] `) ? (/itself stopped for ([\d.]+) s/.exec(l)?.[1] ?? []) : [],
  );
  return said.reduce((ms, s) => ms + Number(s) * 1000, 0);
}

test('three engines on one PostgreSQL farm split six workstations two each, and every job renders once', {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await sharedFarm(
    ctx,
    Array.from({ length: 6 }, () => ({})),
  );
  const [a] = farm.engines as [Engine];
  await waitFor(a, farm, 'the first engine to lease all six', () => held(a).length === 6);
  const b = farm.engine();
  const c = farm.engine();
  await waitFor(a, farm, 'a fair split (2 + 2 + 2)', () => [a, b, c].every((e) => held(e).length === 2));
  const all = [a, b, c].flatMap(held);
  assert.equal(new Set(all).size, 6, 'no workstation is held by two engines');

  const engines = await a.call('farm.engines', {});
  const live = engines.engines.filter((e) => e.stoppedAt === null);
  assert.equal(live.length, 3);
  assert.deepEqual(
    live.map((e) => e.workstations),
    [2, 2, 2],
  );

  // The same from the CLI of another terminal (through engine A's data folder), as JSON and as a table.
  const json = await cli(['--data', a.dataDir, '--database', farm.url, '--json', 'farm', 'engines']);
  assert.equal(json.code, 0, json.err);
  const parsed = JSON.parse(json.out) as { store: string; engines: { live: boolean; workstations: number }[] };
  assert.equal(parsed.store, 'postgres');
  assert.deepEqual(
    parsed.engines.filter((e) => e.live).map((e) => e.workstations),
    [2, 2, 2],
  );
  const table = await cli(['--data', a.dataDir, '--database', farm.url, 'farm', 'engines']);
  assert.equal(table.code, 0, table.err);
  assert.match(table.out, /^state +host +pid +kind +version +since +workstations +renewed +id/m);
  assert.match(
    table.out,
    /Leases last 10 s \(lease_s\)\./,
    'the setting (this test runs its engines on 3 s through their config)',
  );

  const ids = await farm.importJobs(24, 'sh');
  // The import went through engine A; B and C see the queued jobs at their next pass (a slot freeing, a probe).
  await waitFor(
    a,
    farm,
    'every job completed',
    async () => {
      const s = await a.call('farm.status', {});
      return s.jobsByState.completed === 24;
    },
    60_000,
  );
  for (const id of ids) assert.equal(executed(farm, id), 1, `job ${id} rendered once`);
  const by = a.db.all<{ instance_id: string; n: number }>(
    'SELECT instance_id, COUNT(*) AS n FROM attempts GROUP BY instance_id',
  );
  assert.ok(by.length >= 4, `the jobs ran on the workstations of several engines (${JSON.stringify(by)})`);
});

test('an engine stopped gracefully hands its workstations over at once: the other takes them within one renewal', {
  timeout: 60_000,
}, async (ctx) => {
  const farm = await sharedFarm(ctx, [{}, {}, {}, {}]);
  const [a] = farm.engines as [Engine];
  const b = farm.engine();
  await waitFor(a, farm, 'a fair split (2 + 2)', () => held(a).length === 2 && held(b).length === 2);
  const stoppedAt = Date.now();
  await b.close();
  await waitFor(a, farm, 'engine A to hold all four', () => held(a).length === 4, 10_000);
  const ms = Date.now() - stoppedAt;
  // Handed over (expired now), not waited out: within one renewal period (lease_s / 3) and some.
  assert.ok(ms < LEASE_MS, `taken over ${ms} ms after the graceful stop (the lease is ${LEASE_MS} ms)`);
  ctx.diagnostic(`graceful hand-over: ${ms} ms`);
  const list = await a.call('farm.engines', {});
  const stopped = list.engines.find((e) => e.stoppedAt !== null);
  assert.ok(stopped, 'the stopped engine is listed as stopped');
  assert.equal(stopped.workstations, 0);
});

test('an engine that stops renewing is adopted within lease_s; its running prompt is recovered, not posted again', {
  timeout: 90_000,
}, async (ctx) => {
  // One long prompt per workstation, so one is running on each when engine B freezes.
  // No prefetch: each engine's workstation takes one of the two jobs (none waits behind the other).
  const farm = await sharedFarm(ctx, [{ duration: { fixedMs: 6_000 } }, { duration: { fixedMs: 6_000 } }], {
    prefetch: false,
  });
  const [a] = farm.engines as [Engine];
  const b = farm.engine();
  await waitFor(a, farm, 'one workstation each', () => held(a).length === 1 && held(b).length === 1);
  const ids = await farm.importJobs(2, 'long');
  const onB = held(b)[0] as string;
  await waitFor(a, farm, 'both prompts running', () =>
    ids.every((id) => farm.sims.some((s) => s.counts(id).received === 1)),
  );
  const jobOnB = a.db.one<{ job_id: string }>(
    "SELECT job_id FROM attempts WHERE instance_id = ? AND state <> 'ended'",
    onB,
  )?.job_id as string;
  assert.ok(jobOnB, 'an attempt is open on the workstation B drives');

  // B freezes: it stops renewing (its runners go on, as a process woken from SIGSTOP would).
  const frozenAt = Date.now();
  const logsBefore = farm.logs.length;
  leasesOf(b).pause();
  await waitFor(a, farm, 'engine A to adopt B’s workstation', () => held(a).includes(onB), LEASE_MS * 3);
  const adoptMs = Date.now() - frozenAt;
  // Every engine here shares this process: time it was stalled (a loaded machine's; each engine's
  // loop watch says so) delays A's take-over as much as B's freeze, and is not A's to answer for.
  const stalledMs = stalledSince(farm.logs.slice(logsBefore), 0);
  ctx.diagnostic(
    `adopted ${adoptMs} ms after the last renewal stopped (lease ${LEASE_MS} ms; stalled ${stalledMs} ms)`,
  );
  assert.ok(
    adoptMs - stalledMs <= LEASE_MS + LEASE_MS / 3 + 1_000,
    `adopted within lease_s and one renewal (${adoptMs} ms, of which the process was stalled ${stalledMs} ms)`,
  );

  await waitFor(
    a,
    farm,
    'both jobs completed',
    async () => {
      const s = await a.call('farm.status', {});
      return s.jobsByState.completed === 2;
    },
    40_000,
  );
  for (const id of ids) {
    assert.equal(received(farm, id), 1, `job ${id} was posted once`);
    assert.equal(executed(farm, id), 1, `job ${id} rendered once`);
  }
  const attempts = a.db.all<{ outcome: string }>('SELECT outcome FROM attempts WHERE job_id = ?', jobOnB);
  assert.deepEqual(
    attempts.map((x) => x.outcome),
    ['completed'],
    'the adopted attempt itself completed (recovered from the server, no second attempt)',
  );
  assert.equal(a.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM assets WHERE job_id = ?', jobOnB)?.n, 1);
  // B's own runner learned it at its next write (a progress checkpoint, or its end) — refused by the
  // fence — and detached, said once in B's log.
  await waitFor(a, farm, 'B to say its attempt was left to the other engine', () =>
    farm.logs.some((l) => l.startsWith('[engine 1]') && /left to th(at|e) engine/.test(l)),
  );
});

test('a stale engine’s write after its epoch moved on is refused and changes nothing', {
  timeout: 60_000,
}, async (ctx) => {
  const farm = await sharedFarm(ctx, [{ duration: { fixedMs: 8_000 } }]);
  const [a] = farm.engines as [Engine];
  await waitFor(a, farm, 'A to lease the workstation', () => held(a).length === 1);
  const [id] = await farm.importJobs(1, 'fence');
  const station = held(a)[0] as string;
  const epoch = leasesOf(a).epochOf(station) as number;
  await waitFor(a, farm, 'the prompt to run', () => received(farm, id as string) === 1);
  const attempt = a.db.one<{ id: string }>("SELECT id FROM attempts WHERE state <> 'ended'")?.id as string;

  // A freezes; B starts and, once A's lease expired, takes the workstation (epoch + 1).
  leasesOf(a).pause();
  const b = farm.engine();
  await waitFor(b, farm, 'B to take the workstation', () => held(b).includes(station), LEASE_MS * 3);
  assert.equal(leasesOf(b).epochOf(station), epoch + 1);

  // A wakes up and writes a progress checkpoint under its old epoch: refused, nothing changed.
  const before = a.db.one<{ progress_value: number | null; progress_at: number | null }>(
    'SELECT progress_value, progress_at FROM jobs WHERE id = ?',
    id,
  );
  const batch = fencedBatch(new CommitBatch(a.db), leasesOf(a), { instanceId: station, epoch });
  await assert.rejects(
    batch.add(() =>
      saveProgress(a.db, id as string, attempt, { node: '3', nodeType: 'KSampler', value: 99, max: 100, at: 1 }, 1),
    ),
    (err) => isLeaseLost(err),
  );
  const afterRow = a.db.one('SELECT progress_value, progress_at FROM jobs WHERE id = ?', id);
  assert.deepEqual(afterRow, before, 'the refused write changed nothing');
  // The refusal also told A: it no longer dispatches there.
  assert.equal(leasesOf(a).epochOf(station), null);

  await waitFor(
    b,
    farm,
    'the job completed through B',
    async () => (await b.call('jobs.get', { id: id as string })).state === 'completed',
    40_000,
  );
  assert.equal(received(farm, id as string), 1, 'posted once');
  assert.equal(executed(farm, id as string), 1, 'rendered once');
});

test('a workstation pinned to an engine stays with it, and unpinned it is shared again', {
  timeout: 60_000,
}, async (ctx) => {
  const farm = await sharedFarm(ctx, [{}, {}]);
  const [a] = farm.engines as [Engine];
  const b = farm.engine();
  await waitFor(a, farm, 'one each', () => held(a).length === 1 && held(b).length === 1);
  const onA = held(a)[0] as string;
  const name = (await a.call('instances.list', {})).find((i) => i.id === onA)?.name as string;
  const neither = await cli(['--data', a.dataDir, '--database', farm.url, 'workers', 'pin', name]);
  assert.equal(neither.code, EXIT.usage, neither.err);
  const pinned = await cli([
    '--data',
    a.dataDir,
    '--database',
    farm.url,
    'workers',
    'pin',
    name,
    '--engine',
    leasesOf(b).identity.id,
  ]);
  assert.equal(pinned.code, 0, pinned.err);
  assert.match(pinned.out, new RegExp(`${name} is pinned to ${leasesOf(b).identity.id}`));
  await waitFor(
    a,
    farm,
    'the pinned workstation to move to B',
    () => held(b).includes(onA) && !held(a).includes(onA),
    10_000,
  );
  // B's fair share (ceil(2 ÷ 2) = 1) is its pinned one: it hands the other over to A.
  await waitFor(a, farm, 'the other one to be A’s', () => held(a).length === 1 && held(b).length === 1, 10_000);
  assert.deepEqual(held(b), [onA]);
  const cards = await a.call('instances.list', {});
  assert.equal(cards.find((c) => c.id === onA)?.engine?.pinned, leasesOf(b).identity.id);

  await a.call('instances.pin', { id: name, engine: null });
  await waitFor(a, farm, 'a fair split again', () => held(a).length === 1 && held(b).length === 1, 10_000);
});

test('an engine starting on a host where a killed engine left its leases takes them at once, not at their expiry', {
  timeout: 60_000,
}, async (ctx) => {
  const farm = await sharedFarm(ctx, [{}]);
  const [a] = farm.engines as [Engine];
  await waitFor(a, farm, 'A to lease the workstation', () => held(a).length === 1);
  // A as a kill -9 leaves it: renewing no more, its pid gone, its lease good for ten more minutes.
  leasesOf(a).pause();
  const dead = spawnSync(process.execPath, ['-e', '']).pid as number;
  a.db.run('UPDATE engines SET pid = ? WHERE id = ?', dead, leasesOf(a).identity.id);
  a.db.run('UPDATE workstation_leases SET expires_at = expires_at + 600000');
  const startedAt = Date.now();
  const b = farm.engine();
  await waitFor(b, farm, 'B to take the workstation', () => held(b).length === 1, 5_000);
  ctx.diagnostic(`taken ${Date.now() - startedAt} ms after the restart`);
  const list = await b.call('farm.engines', {});
  assert.ok(list.engines.find((e) => e.id === leasesOf(a).identity.id)?.stoppedAt, 'the dead engine is marked stopped');
});

test('jobs why asked of one engine knows the prompts another engine runs on its workstations, and names that engine', {
  timeout: 60_000,
}, async (ctx) => {
  // Long prompts, no prefetch: each engine's one workstation runs one job; the third waits.
  const farm = await sharedFarm(ctx, [{ duration: { fixedMs: 8_000 } }, { duration: { fixedMs: 8_000 } }], {
    prefetch: false,
  });
  const [a] = farm.engines as [Engine];
  const b = farm.engine();
  await waitFor(a, farm, 'one workstation each', () => held(a).length === 1 && held(b).length === 1);
  const ids = await farm.importJobs(3, 'why');
  await waitFor(
    a,
    farm,
    'two prompts running',
    () => a.db.one<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE state = 'running'")?.n === 2,
  );
  const waiting = a.db.one<{ id: string }>("SELECT id FROM jobs WHERE state = 'queued'")?.id as string;
  assert.ok(ids.includes(waiting));
  const onB = held(b)[0] as string;
  const bWords = `driven by engine ${leasesOf(b).identity.host} · ${leasesOf(b).identity.id.slice(0, 8)}`;
  // Asked of A: B's workstation is busy with B's prompt (known from the store), and B is named.
  await waitFor(a, farm, 'A to explain the wait', async () => {
    const why = await a.call('jobs.why', { id: waiting });
    return why.instances.length === 2 && why.summary === 'every workstation that can take it is busy';
  });
  const why = await a.call('jobs.why', { id: waiting });
  const there = why.instances.find((i) => i.instanceId === onB);
  assert.equal(there?.kind, 'busy', JSON.stringify(why));
  assert.equal(there?.text, `is busy (1 of 1 slot in use) (${bWords})`);
  // A's own workstation is not another engine's: no engine named.
  const own = why.instances.find((i) => i.instanceId !== onB);
  assert.equal(own?.text, 'is busy (1 of 1 slot in use)');
});

test('jobs why asked of one engine says a workstation another engine keeps free for a large job is kept free', {
  timeout: 90_000,
}, async (ctx) => {
  // Two 24 GB GPUs with two slots each, one per engine, both full of 8 GB jobs for long; a 20 GB job
  // starves (each slot that frees refills with 8 GB), so one engine keeps its GPU free for it.
  const { farm, a, b } = await sizeFarm(ctx, 30_000); // both GPUs full of small jobs
  const importList = (ids: string[], template: string, priority: 'rush' | 'normal' = 'normal') =>
    importShots(a, ids, template, priority);
  const [big] = (await importList(['big'], 'big20')) as [string];
  const [small] = (await importList(['small'], 'small8')) as [string];
  await waitFor(
    a,
    farm,
    'the big job to wait past the starvation time',
    async () => (await a.call('jobs.get', { id: big })).enqueuedAt <= Date.now() - 300,
  );
  // A rush import makes every engine decide again: one finds the big job starving and keeps
  // its GPU free for it (which of them is a race between the engines' passes; the other then does not).
  await importList(['rush'], 'small8', 'rush');
  const reservedOn = async (): Promise<string | null> =>
    a.db.one<{ instance_id: string }>(
      'SELECT instance_id FROM workstation_leases WHERE reserved_job = ? AND reserved_by = engine_id ORDER BY instance_id LIMIT 1',
      big,
    )?.instance_id ?? null;
  await waitFor(a, farm, 'an engine to keep its GPU free for the big job', async () => (await reservedOn()) !== null);
  const kept = (await reservedOn()) as string;
  // Asked of the engine that does not drive that GPU: it knows only from the store.
  const [driver, asked] = held(a).includes(kept) ? [a, b] : [b, a];
  const words = `driven by engine ${leasesOf(driver).identity.host} · ${leasesOf(driver).identity.id.slice(0, 8)}`;
  await waitFor(asked, farm, 'the other engine to say that GPU is kept free for the big job', async () => {
    const why = await asked.call('jobs.why', { id: small });
    return why.instances.find((i) => i.instanceId === kept)?.kind === 'reserved';
  });
  const why = await asked.call('jobs.why', { id: small });
  assert.equal(
    why.instances.find((i) => i.instanceId === kept)?.text,
    `is kept free for job ${big.slice(0, 8)}, which is too large for the slots that free up (${words})`,
  );
});

test('on SQLite a second engine on the same data folder is still refused', { timeout: 30_000 }, async (ctx) => {
  const tmp = makeTempDir('shotfarm-sqlite-engines-');
  ctx.after(() => tmp.cleanup());
  const one = new Engine({ dataDir: tmp.path, kind: 'run', log: () => undefined });
  ctx.after(() => one.close());
  assert.equal(one.db.dialect, 'sqlite');
  assert.throws(
    () => new Engine({ dataDir: tmp.path, kind: 'run', log: () => undefined }),
    (err: Error & { code?: string }) => err.code === 'conflict' && /already run/.test(err.message),
  );
  one.startScheduler(FAST);
  assert.equal(one.leases, null, 'no leases on SQLite');
});
