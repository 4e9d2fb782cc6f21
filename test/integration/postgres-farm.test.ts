/**
 * A farm on PostgreSQL end to end: the engine opened with a database URL (a fresh database on the
 * test's throwaway server), a shot list imported, real simulators on loopback rendering, outputs on
 * disk and their ledger rows, the run log and ledger exports, and `status` through the CLI with
 * `--database`. Then the server stopped under a running farm (`pg_ctl stop -m fast`) and started
 * again 20 s later: the farm holds with "the database is unreachable", counts no attempt failed, renders no
 * job twice, and dispatches again within 5 s of the server's return.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Engine } from '../../electron/engine/engine.js';
import type { FarmStatus } from '../../shared/domain.js';
import { executedCount, farmFor } from '../helpers/farm.js';
import { runCliArgs } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { testPostgres } from '../helpers/test-store.js';

after(async () => (await testPostgres()).close());

const cli = runCliArgs;

test('a farm on PostgreSQL renders a shot list: outputs hashed on disk, ledger rows, exports and status from the database', {
  timeout: 120_000,
}, async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{}, {}], store: 'postgres' });
  assert.equal(farm.engine.db.dialect, 'postgres');
  const ids = await farm.importJobs([{ id: 'sh010' }, { id: 'sh020' }, { id: 'sh030' }, { id: 'sh040' }]);
  await farm.waitForStates(ids, ['completed'], 30_000);

  const ledger = await farm.engine.call('assets.list', {});
  assert.equal(ledger.total, 4);
  for (const a of ledger.rows) {
    assert.ok(existsSync(a.path), `${a.path} exists`);
    assert.equal(createHash('sha256').update(readFileSync(a.path)).digest('hex'), a.sha256);
  }
  for (const id of ids) assert.equal(executedCount(farm, id), 1, `job ${id} rendered once`);
  const attempts = farm.engine.db.all<{ outcome: string }>('SELECT outcome FROM attempts');
  assert.deepEqual(
    attempts.map((a) => a.outcome),
    ['completed', 'completed', 'completed', 'completed'],
  );

  // import-db replaces the data folder's SQLite file, which this farm does not use: refused.
  await assert.rejects(farm.engine.call('db.import', { path: join(farm.dir, 'other.sqlite') }), /PostgreSQL database/);

  // The queue's search ignores case on both stores (SQLite's LIKE does; PostgreSQL's ILIKE).
  assert.equal((await farm.engine.call('jobs.list', { filter: { search: 'SH010' } })).total, 1);

  const runlog = join(farm.dir, 'runlog.csv');
  const exported = await farm.engine.call('export.runlog', { path: runlog });
  assert.equal(exported.rows, 4);

  // `status` from another "terminal": the data folder's engine answers, reading the same database.
  const status = await cli(['--data', farm.dir, '--database', farm.store.databaseUrl as string, '--json', 'status']);
  assert.equal(status.code, 0, status.err);
  const s = JSON.parse(status.out) as { jobsByState: Record<string, number>; storageHold: unknown };
  assert.equal(s.jobsByState.completed, 4);
  assert.equal(s.storageHold, null);
});

test('a second engine on the same PostgreSQL database joins the farm (several engines share it through workstation leases)', {
  timeout: 60_000,
}, async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{}], store: 'postgres' });
  const other = makeTempDir('shotfarm-other-');
  ctx.after(() => other.cleanup());
  const second = new Engine({
    dataDir: other.path,
    databaseUrl: farm.store.databaseUrl,
    kind: 'run',
    log: () => undefined,
  });
  ctx.after(() => second.close());
  const engines = await second.call('farm.engines', {});
  assert.equal(engines.store, 'postgres');
  assert.deepEqual(
    engines.engines.filter((e) => e.live).map((e) => e.kind),
    ['embedded', 'run'],
  );
});

test('PostgreSQL stopped under a running farm and started again: the farm holds (the database is unreachable), burns no attempt, renders no job twice, and dispatches again within 5 s', {
  timeout: 180_000,
}, async (ctx) => {
  const farm = await farmFor(ctx, {
    instances: [{ duration: { fixedMs: 400 } }, { duration: { fixedMs: 400 } }],
    store: 'postgres',
  });
  const pg = await testPostgres();
  const ids = await farm.importJobs(Array.from({ length: 12 }, (_, i) => ({ id: `sh${String(i).padStart(3, '0')}` })));
  const status = () => farm.engine.call('farm.status', {});
  await farm.waitFor('two jobs to complete', async () => (await status()).jobsByState.completed >= 2, 30_000);

  pg.stop('fast');
  const stoppedAt = Date.now();
  let held: FarmStatus | null = null;
  await farm.waitFor(
    'the farm to hold because the database is unreachable',
    async () => {
      held = await status();
      return held.storageHold?.kind === 'database_unreachable';
    },
    20_000,
  );
  const during = held as FarmStatus | null;
  assert.match(during?.storageHold?.reason ?? '', /^the database is unreachable/);
  assert.equal(during?.dispatching, false);
  // `status` from another terminal says so too (through the engine running the farm).
  const cli = await cliStatus(farm.dir, farm.store.databaseUrl as string);
  assert.match(cli, /the database is unreachable/);
  // Down for 20 s (the outage): prompts end on the workstations meanwhile, and their ends wait with the farm.
  await sleep(Math.max(0, stoppedAt + 20_000 - Date.now()));

  pg.start();
  const back = Date.now();
  await farm.waitFor(
    'a job dispatched after the server came back',
    () =>
      (farm.engine.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM attempts WHERE dispatched_at >= ?', back)?.n ?? 0) >
      0,
    15_000,
  );
  const firstAfter = farm.engine.db.one<{ at: number }>(
    'SELECT MIN(dispatched_at) AS at FROM attempts WHERE dispatched_at >= ?',
    back,
  )?.at as number;
  assert.ok(firstAfter - back <= 5_000, `dispatching again ${firstAfter - back} ms after the server came back`);

  const done = await farm.waitForStates(ids, ['completed'], 60_000);
  assert.deepEqual(
    done.filter((j) => j.attempts !== 1).map((j) => [j.shot, j.attempts]),
    [],
    'no attempt was spent on the outage',
  );
  const outcomes = farm.engine.db.all<{ outcome: string }>("SELECT outcome FROM attempts WHERE outcome <> 'completed'");
  assert.deepEqual(
    outcomes.filter((o) => o.outcome !== 'requeued'),
    [],
    'no attempt failed',
  );
  for (const id of ids) assert.equal(executedCount(farm, id), 1, `job ${id} rendered once`);
  await farm.waitFor('the hold to be over', async () => (await status()).storageHold === null, 10_000);

  // The restart ended the session holding the engines' (shared) lock: the engine takes it again at
  // its next beat; a second engine still joins the farm.
  await farm.waitFor(
    "the engines' advisory lock to be held again",
    () =>
      (farm.engine.db.one<{ n: number }>(
        "SELECT COUNT(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = ? AND objsubid = 1 AND granted",
        FARM_LOCK_KEY,
      )?.n ?? 0) === 1,
    15_000,
  );
  const other = makeTempDir('shotfarm-other-');
  ctx.after(() => other.cleanup());
  const second = new Engine({
    dataDir: other.path,
    databaseUrl: farm.store.databaseUrl,
    kind: 'run',
    log: () => undefined,
  });
  await second.close();
});

/** The engines' lock key (store/postgres/postgres-db.ts): a bigint below 2^32 is pg_locks' objid, objsubid 1. */
const FARM_LOCK_KEY = 0x5f4f_7f46;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function cliStatus(dataDir: string, url: string): Promise<string> {
  const r = await cli(['--data', dataDir, '--database', url, 'status']);
  return `${r.out}\n${r.err}`;
}
