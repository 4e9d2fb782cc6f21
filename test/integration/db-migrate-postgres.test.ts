/**
 * `shotfarm db migrate --to URL` on a real PostgreSQL (a throwaway cluster): a SQLite farm of 10k
 * jobs with attempts, ledger rows, people, settings, hooks, workstations, uploads and order changes
 * lands in an empty database with every row of every table equal, its ids continuing after the
 * copied ones, and opens as a PostgreSQL store; a database that holds a farm is refused without
 * --replace and replaced with it; a running farm, an unreachable server, a missing database, a
 * non-PostgreSQL URL, a newer schema and another application's tables are refused in words, with
 * the CLI's exit codes, and nothing is written. `db export` of a PostgreSQL store is a SQLite file
 * with every row.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { systemClock } from '../../electron/engine/clock.js';
import { Engine } from '../../electron/engine/engine.js';
import { jobEvents } from '../../electron/engine/job-state.js';
import { exportDatabase } from '../../electron/engine/store/db-transfer.js';
import { copiedTables, NOT_COPIED } from '../../electron/engine/store/farm-copy.js';
import { countByState, jobRow } from '../../electron/engine/store/job-store.js';
import { migrate } from '../../electron/engine/store/migrate.js';
import { MIGRATIONS } from '../../electron/engine/store/migrations/index.js';
import { openPostgresDb } from '../../electron/engine/store/postgres/postgres-db.js';
import { type SqlDb, sqliteSqlDb } from '../../electron/engine/store/sql-db.js';
import { farmWithHistory } from '../helpers/farm-with-history.js';
import { runCli } from '../helpers/cli.js';
import { makeEngine } from '../helpers/engine.js';
import { FAST, farmFor, waitOnEngine } from '../helpers/farm.js';
import { type PostgresCluster, startPostgresCluster } from '../helpers/postgres-cluster.js';
import { tempDirFor } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait.js';

let cluster: PostgresCluster;
before(async () => {
  cluster = await startPostgresCluster();
});
after(() => cluster?.close());

/** Every row of a table in key order, as JSON (byte arrays as hex): equal text means equal rows. */
function dumpTable(db: SqlDb, table: string): string {
  const shape = copiedTables().find((s) => s.name === table);
  assert.ok(shape, table);
  const cols = shape.columns.map((c) => `"${c}"`).join(', ');
  const rows = db.all<Record<string, unknown>>(
    `SELECT ${cols} FROM "${table}" ORDER BY ${shape.key.map((k) => `"${k}"`).join(', ')}`,
  );
  return JSON.stringify(rows, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('hex') : v));
}

function digestAll(db: SqlDb): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of copiedTables()) out[t.name] = createHash('sha256').update(dumpTable(db, t.name)).digest('hex');
  return out;
}

test('db migrate moves a 10k-job farm into an empty PostgreSQL database: every row of every table equal, output hashes equal, new ids after the copied ones, and it opens as a PostgreSQL store', {
  timeout: 300_000,
}, async (ctx) => {
  const farm = await farmWithHistory(10_000);
  ctx.after(farm.close);
  const src = farm.engine.db;
  for (const t of copiedTables())
    assert.ok(
      (src.one<{ n: number }>(`SELECT COUNT(*) AS n FROM "${t.name}"`)?.n ?? 0) > 0,
      `the farm has rows in ${t.name}`,
    );
  const before = digestAll(src);
  await farm.engine.close(); // the command opens the data folder itself, as on a farm host with the farm stopped

  const url = cluster.createDatabase('moved');
  const started = process.hrtime.bigint();
  const r = await runCli(farm.dir, 'db', 'migrate', '--to', url);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  assert.equal(r.code, 0, r.err);
  const jobsLine = r.out.split('\n').find((l) => l.startsWith('jobs '));
  assert.match(jobsLine ?? '', /^jobs\s+10000\s+10000\s+ok$/, r.out);
  assert.match(r.out, /Moved 10000 jobs/);
  const rows = copiedTables().length;
  ctx.diagnostic(`db migrate of 10,000 jobs: ${Math.round(ms)} ms for the whole command (${r.out.split('\n').at(-1)})`);
  assert.equal(r.out.split('\n').filter((l) => / ok$/.test(l)).length, rows, 'one matching line per table');

  const pg = openPostgresDb(url);
  ctx.after(() => pg.close());
  assert.equal(migrate(pg, systemClock), 0, 'the chain is applied whole: opening it as a store applies nothing');
  assert.deepEqual(
    pg.all<{ id: number }>('SELECT id FROM schema_migrations ORDER BY id').map((m) => m.id),
    MIGRATIONS.map((m) => m.id),
  );
  assert.deepEqual(digestAll(pg), before, 'every row of every table, column by column');

  const lite = sqliteSqlDb(new Database(join(farm.dir, 'shotfarm.sqlite'), { readonly: true }));
  ctx.after(() => lite.close());
  const hashes = (db: SqlDb) => db.all<{ id: string; sha256: string }>('SELECT id, sha256 FROM assets ORDER BY id');
  assert.equal(hashes(pg).length, 10_000);
  assert.deepEqual(hashes(pg), hashes(lite), "every output's hash");
  assert.deepEqual(digestAll(lite), before, 'the SQLite farm is left as it was');

  // Identity columns continue after the copied ids: a new row does not collide.
  const maxEvent = pg.one<{ m: number }>('SELECT MAX(id) AS m FROM job_events')?.m ?? 0;
  const jobId = pg.one<{ id: string }>('SELECT id FROM jobs ORDER BY id LIMIT 1')?.id;
  const added = pg.one<{ id: number }>(
    "INSERT INTO job_events (job_id, to_state, actor, at) VALUES (?, 'held', 'test', 0) RETURNING id",
    jobId,
  );
  assert.ok(added && added.id > maxEvent, `a new event is numbered after ${maxEvent}`);
  const person = pg.one<{ id: number }>(
    "INSERT INTO users (name, role, token_sha256, created_at) VALUES ('zoe', 'artist', 'x', 0) RETURNING id",
  );
  assert.ok(person && person.id > 2);
  // The copied rows read back through the store's own modules: states, a job, its history, people by name regardless of case.
  assert.deepEqual(countByState(pg), countByState(lite));
  const some = lite.one<{ id: string }>('SELECT id FROM jobs ORDER BY id LIMIT 1 OFFSET 4321')?.id as string;
  // On PostgreSQL a job also carries SQLite's rowid as a column (the queue's tie-break): the same number.
  const { rowid, ...pgJob } = jobRow(pg, some) as unknown as Record<string, unknown>;
  assert.deepEqual(pgJob, jobRow(lite, some));
  assert.equal(rowid, lite.one<{ r: number }>('SELECT rowid AS r FROM jobs WHERE id = ?', some)?.r);
  assert.deepEqual(jobEvents(pg, some, 100), jobEvents(lite, some, 100));
  assert.equal(pg.one<{ role: string }>('SELECT role FROM users WHERE name = ?', 'MIRA')?.role, 'admin');
});

test('db migrate refuses a database that already holds a farm unless --replace, and --replace replaces it whole', {
  timeout: 120_000,
}, async (ctx) => {
  const a = await farmWithHistory(20);
  ctx.after(a.close);
  await a.engine.close();
  const b = await farmWithHistory(7);
  ctx.after(b.close);
  const bDigest = digestAll(b.engine.db);
  await b.engine.close();
  const url = cluster.createDatabase('taken');
  assert.equal((await runCli(a.dir, 'db', 'migrate', '--to', url)).code, 0);

  const pg = openPostgresDb(url);
  ctx.after(() => pg.close());
  const aDigest = digestAll(pg);
  const refused = await runCli(b.dir, 'db', 'migrate', '--to', url);
  assert.equal(refused.code, 5, refused.err);
  assert.match(refused.err, /already holds a farm \(20 jobs, \d+ rows in all\); pass --replace/);
  assert.deepEqual(digestAll(pg), aDigest, 'nothing written');

  const replaced = await runCli(b.dir, 'db', 'migrate', '--to', url, '--replace');
  assert.equal(replaced.code, 0, replaced.err);
  assert.match(replaced.out, /Moved 7 jobs .*replacing the farm that was there/);
  assert.deepEqual(digestAll(pg), bDigest);

  // A database whose Shotfarm tables are there but empty (an engine opened it once) is not a farm to protect.
  const fresh = cluster.createDatabase('schema_only');
  const opened = openPostgresDb(fresh);
  migrate(opened, systemClock);
  opened.close();
  const intoEmpty = await runCli(b.dir, 'db', 'migrate', '--to', fresh);
  assert.equal(intoEmpty.code, 0, intoEmpty.err);
});

test('db migrate is refused while an engine runs the farm, or a farm in the destination (exit 10), and writes nothing', {
  timeout: 120_000,
}, async (ctx) => {
  const dir = tempDirFor(ctx);
  const running = new Engine({ dataDir: dir, kind: 'serve' });
  ctx.after(() => running.close());
  const url = cluster.createDatabase('held');
  const r = await runCli(dir, 'db', 'migrate', '--to', url);
  assert.equal(r.code, 10, r.err);
  assert.match(r.err, /A farm is running on .*stop it .* before moving it to PostgreSQL/);
  const pg = openPostgresDb(url);
  ctx.after(() => pg.close());
  assert.equal(
    pg.one<{ n: number }>('SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = current_schema()')
      ?.n,
    0,
  );

  // An engine running a farm in the destination database (on another host, as far as it knows): --replace is refused too.
  await running.close();
  const theirs = tempDirFor(ctx);
  const other = new Engine({ dataDir: theirs, databaseUrl: url, kind: 'serve', log: () => undefined });
  ctx.after(() => other.close());
  const rowsBefore = pg.one<{ n: number }>('SELECT COUNT(*) AS n FROM settings')?.n;
  const replacing = await runCli(dir, 'db', 'migrate', '--to', url, '--replace');
  assert.equal(replacing.code, 10, replacing.err);
  assert.match(replacing.err, /The farm in the database postgres:\/\/.* is already run by `shotfarm serve`/);
  assert.equal(pg.one<{ n: number }>('SELECT COUNT(*) AS n FROM settings')?.n, rowsBefore, 'nothing written');
});

test('db migrate refuses what it cannot use in words, with the exit codes, writing nothing: unreachable, no such database or user, not PostgreSQL, a newer schema, another application', {
  timeout: 120_000,
}, async (ctx) => {
  const farm = await farmWithHistory(3);
  ctx.after(farm.close);
  await farm.engine.close();
  const dir = farm.dir;

  const closedPort = `postgres://shotfarm@127.0.0.1:1/shotfarm`;
  const unreachable = await runCli(dir, 'db', 'migrate', '--to', closedPort);
  assert.equal(unreachable.code, 6, unreachable.err);
  assert.match(
    unreachable.err,
    /Cannot reach PostgreSQL at 127\.0\.0\.1:1 .*Check the host and port in the URL, that the server runs/,
  );

  const noDb = await runCli(dir, 'db', 'migrate', '--to', cluster.url('nowhere'));
  assert.equal(noDb.code, 3, noDb.err);
  assert.match(noDb.err, /The database "nowhere" does not exist on 127\.0\.0\.1:\d+\. Create it first/);

  const noUser = await runCli(
    dir,
    'db',
    'migrate',
    '--to',
    cluster.url('postgres').replace('shotfarm@', 'nobody:secret@'),
  );
  assert.equal(noUser.code, 3, noUser.err);
  assert.match(noUser.err, /did not let nobody in|refused the password of nobody/);
  assert.doesNotMatch(noUser.err, /secret/, 'the password is never printed');

  // A role that logs in with a password (the cluster trusts every other one): a wrong one is refused in words.
  const admin = openPostgresDb(cluster.url());
  ctx.after(() => admin.close());
  admin.exec("CREATE ROLE pwuser LOGIN PASSWORD 'right-one'");
  const hba = join(cluster.dataDir, 'pg_hba.conf');
  writeFileSync(hba, `host all pwuser 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, 'utf8')}`);
  admin.one('SELECT pg_reload_conf() AS ok');
  // The server reads pg_hba.conf again on the signal: wait until it asks pwuser for the password.
  await waitUntil(
    () => {
      try {
        openPostgresDb(cluster.url('postgres').replace('shotfarm@', 'pwuser:wrong-one@')).close();
        return false;
      } catch (err) {
        return (err as { code?: string }).code === '28P01';
      }
    },
    { what: 'the server to ask pwuser for a password', timeoutMs: 10_000, pollMs: 100 },
  );
  const wrongPassword = await runCli(
    dir,
    'db',
    'migrate',
    '--to',
    cluster.url('postgres').replace('shotfarm@', 'pwuser:wrong-one@'),
  );
  assert.equal(wrongPassword.code, 3, wrongPassword.err);
  assert.match(
    wrongPassword.err,
    /refused the password of pwuser\. Check the password \(PGPASSWORD, ~\/\.pgpass or the URL\)/,
  );
  assert.doesNotMatch(wrongPassword.err, /wrong-one/);

  const mysql = await runCli(dir, 'db', 'migrate', '--to', 'mysql://root:pw@db/farm');
  assert.equal(mysql.code, 2, mysql.err);
  assert.match(mysql.err, /--to takes a PostgreSQL URL \(postgres:\/\/USER@HOST:5432\/DATABASE\)/);
  assert.doesNotMatch(mysql.err, /pw/);

  const newerOnly = cluster.createDatabase('future_only');
  const g = openPostgresDb(newerOnly);
  ctx.after(() => g.close());
  migrate(g, systemClock);
  g.run("INSERT INTO schema_migrations (id, name, sha256, applied_at) VALUES (999, '0999-future', 'x', 0)");
  const refusedNewer = await runCli(dir, 'db', 'migrate', '--to', newerOnly, '--replace');
  assert.equal(refusedNewer.code, 6, refusedNewer.err);
  assert.match(
    refusedNewer.err,
    /holds a farm written by a newer Shotfarm \(migration 0999-future is unknown to this version\)\. Update Shotfarm/,
  );
  assert.equal(
    g.one<{ n: number }>('SELECT COUNT(*) AS n FROM schema_migrations')?.n,
    MIGRATIONS.length + 1,
    'nothing written',
  );

  const other = cluster.createDatabase('kitsu');
  const k = openPostgresDb(other);
  ctx.after(() => k.close());
  k.exec('CREATE TABLE task (id BIGINT PRIMARY KEY)');
  const foreign = await runCli(dir, 'db', 'migrate', '--to', other, '--replace');
  assert.equal(foreign.code, 5, foreign.err);
  assert.match(
    foreign.err,
    /holds tables that are not Shotfarm's \(task\): Shotfarm never replaces another application's data/,
  );
  assert.deepEqual(
    k
      .all<{ t: string }>('SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema()')
      .map((r) => r.t),
    ['task'],
  );
});

test('db export of a PostgreSQL farm (--database URL) writes a SQLite file with every row, which db import takes', {
  timeout: 120_000,
}, async (ctx) => {
  const farm = await farmWithHistory(50);
  ctx.after(farm.close);
  const before = digestAll(farm.engine.db);
  await farm.engine.close();
  const url = cluster.createDatabase('to_export');
  assert.equal((await runCli(farm.dir, 'db', 'migrate', '--to', url)).code, 0);

  const pg = openPostgresDb(url);
  ctx.after(() => pg.close());
  const file = join(tempDirFor(ctx), 'from-postgres.sqlite');
  const exported = await runCli(tempDirFor(ctx), '--database', url, 'db', 'export', '--out', file);
  assert.equal(exported.code, 0, exported.err);
  assert.match(exported.out, /Database copied to .*from-postgres\.sqlite \(\d+ bytes\)/);
  // The store-level call too (the engine's handler calls it with its connection).
  const again = join(tempDirFor(ctx), 'again.sqlite');
  assert.ok((await exportDatabase(pg, again, systemClock)) > 0);
  const copy = sqliteSqlDb(new Database(file, { readonly: true }));
  try {
    assert.deepEqual(digestAll(copy), before);
  } finally {
    copy.close();
  }
  const studio = tempDirFor(ctx);
  const imported = await runCli(studio, 'db', 'import', file);
  assert.equal(imported.code, 0, imported.err);
  assert.match(imported.out, /50 jobs/);
});

test('every table a store holds is copied or named as not copied, with a reason (SQLite and PostgreSQL catalogues)', {
  timeout: 60_000,
}, async (ctx) => {
  const copied = new Set(copiedTables().map((t) => t.name));
  for (const [t, why] of Object.entries(NOT_COPIED)) {
    assert.ok(why.length > 20, `${t} says why it is not copied`);
    assert.ok(!copied.has(t));
  }
  const covered = (t: string) => copied.has(t) || t in NOT_COPIED;
  const t = await makeEngine();
  ctx.after(t.close);
  const liteTables = t.engine.db
    .all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .map((r) => r.name);
  assert.deepEqual(
    liteTables.filter((x) => !covered(x)),
    [],
    'SQLite: every table copied or excluded with a reason',
  );
  const pg = openPostgresDb(cluster.createDatabase('catalogue'));
  ctx.after(() => pg.close());
  migrate(pg, systemClock);
  const pgTables = pg
    .all<{ name: string }>(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()',
    )
    .map((r) => r.name);
  assert.deepEqual(
    pgTables.filter((x) => !covered(x)),
    [],
    'PostgreSQL: every table copied or excluded with a reason',
  );
  assert.equal(pgTables.length, liteTables.length);
});

test('a row PostgreSQL refuses mid-copy rolls the whole move back: no table, no schema, the table named', {
  timeout: 120_000,
}, async (ctx) => {
  const farm = await farmWithHistory(30);
  ctx.after(farm.close);
  // SQLite keeps a NUL inside text; PostgreSQL's text cannot hold one. uploads is copied after jobs and their history.
  farm.engine.db.run('UPDATE uploads SET uploaded_by = ?', 'mi\u0000ra');
  await farm.engine.close();
  const url = cluster.createDatabase('refused_row');
  const r = await runCli(farm.dir, 'db', 'migrate', '--to', url);
  assert.equal(r.code, 6, r.err);
  assert.match(r.err, /Copying the table uploads failed: .*Nothing was written/);
  const pg = openPostgresDb(url);
  ctx.after(() => pg.close());
  assert.equal(
    pg.one<{ n: number }>('SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = current_schema()')
      ?.n,
    0,
    'the migration chain and the tables copied before uploads were rolled back with it',
  );
});

test('the moved farm runs on PostgreSQL: its queued jobs render on the workstation it knew, and new rows take new ids', {
  timeout: 120_000,
}, async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{}], start: false });
  const first = await farm.importJobs([{ id: 'sh010' }, { id: 'sh020' }]);
  const done = await farm.importJobs([{ id: 'sh030' }]);
  farm.startScheduler();
  await farm.waitForStates(done, ['completed', 'queued', 'running']);
  await farm.engine.close();
  const url = cluster.createDatabase('runs');
  const moved = await runCli(farm.dir, 'db', 'migrate', '--to', url);
  assert.equal(moved.code, 0, moved.err);

  const pgEngine = new Engine({
    dataDir: farm.dir,
    databaseUrl: url,
    outputRoot: join(farm.dir, 'out'),
    log: () => undefined,
  });
  ctx.after(() => pgEngine.close());
  assert.equal(pgEngine.db.dialect, 'postgres');
  pgEngine.startScheduler(FAST);
  const later = await pgEngine.call('import.preview', {
    fileName: 'later.json',
    content: JSON.stringify({
      project: 'P',
      episode: 'E',
      shots: [{ id: 'sh040', stage: 'keyframe', template: 'txt2img' }],
    }),
  });
  const committed = await pgEngine.call('import.commit', { previewId: later.previewId });
  const all = [...first, ...done, ...committed.jobIds];
  await waitOnEngine(pgEngine, 'every job completed on PostgreSQL', async () => {
    const views = await Promise.all(all.map((id) => pgEngine.call('jobs.get', { id })));
    return views.every((v) => v.state === 'completed');
  });
  const ledger = await pgEngine.call('assets.list', {});
  assert.equal(ledger.total, 4, 'every job has its output in the ledger');
});
