/**
 * The migration chain in PostgreSQL's dialect (store/postgres/schema-dialect.ts) applies to a real
 * server and makes the schema SQLite's chain makes: the same tables, columns, nullability and
 * indexes; ids numbered by the database; names unique regardless of case; the RunPod base trigger.
 * The store's migration runner (store/migrate.ts) applies it, with SQLite's refusals.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { systemClock } from '../../electron/engine/clock.js';
import { openDatabase } from '../../electron/engine/store/database.js';
import { migrate } from '../../electron/engine/store/migrate.js';
import { SQL_CANDIDATES, SQL_QUEUED_LATER, SQL_QUEUED_SAME_TIME } from '../../electron/engine/store/job-store.js';
import { MIGRATIONS } from '../../electron/engine/store/migrations/index.js';
import { openPostgresDb, type PostgresDb } from '../../electron/engine/store/postgres/postgres-db.js';
import { ROWID_TABLES } from '../../electron/engine/store/postgres/schema-dialect.js';
import { ShotfarmError } from '../../shared/errors.js';
import { type PostgresCluster, startPostgresCluster } from '../helpers/postgres-cluster.js';
import { makeTempDir } from '../helpers/temp-dir.js';

let cluster: PostgresCluster;
let pg: PostgresDb;
const dir = makeTempDir('shotfarm-schema-');
before(async () => {
  cluster = await startPostgresCluster();
  pg = openPostgresDb(cluster.createDatabase('schema'));
  migrate(pg, systemClock);
});
after(() => {
  pg?.close();
  cluster?.close();
  dir.cleanup();
});

test("the chain makes SQLite's tables, columns, nullability and indexes on PostgreSQL", { timeout: 120_000 }, () => {
  const lite = openDatabase(join(dir.path, 'schema.sqlite'), systemClock);
  try {
    const liteTables = (
      lite.all(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations' ORDER BY name",
      ) as { name: string }[]
    ).map((r) => r.name);
    const columns = (table: string) =>
      (
        lite.all(`SELECT name, "notnull" AS nn, pk FROM pragma_table_info(?) ORDER BY name`, table) as {
          name: string;
          nn: number;
          pk: number;
        }[]
      ).map((c) => `${c.name}${c.nn || c.pk ? ' NOT NULL' : ''}`);
    const liteIndexes = (
      lite.all("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name") as {
        name: string;
      }[]
    ).map((r) => r.name);

    const pgTables = pg
      .all<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'schema_migrations' ORDER BY table_name",
      )
      .map((r) => r.name);
    assert.deepEqual(pgTables, liteTables);
    for (const table of liteTables) {
      const pgColumns = pg
        .all<{ name: string; nullable: string }>(
          'SELECT column_name AS name, is_nullable AS nullable FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY column_name',
          'public',
          table,
        )
        .map((c) => `${c.name}${c.nullable === 'NO' ? ' NOT NULL' : ''}`);
      // SQLite's implicit rowid is a real column on PostgreSQL where the store reads it.
      const liteColumns = [...columns(table), ...(ROWID_TABLES.includes(table) ? ['rowid NOT NULL'] : [])].sort();
      assert.deepEqual(pgColumns, liteColumns, table);
    }
    const pgIndexes = pg
      .all<{ name: string }>(
        "SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'public' AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key' ORDER BY indexname",
      )
      .map((r) => r.name);
    assert.deepEqual(
      pgIndexes.filter((n) => liteIndexes.includes(n)),
      liteIndexes,
      'every named index',
    );
  } finally {
    lite.close();
  }
});

test('ids are numbered by the database, people are unique regardless of case, and a new RunPod base forgets the key', {
  timeout: 60_000,
}, () => {
  const add = (name: string) =>
    pg.one<{ id: number }>(
      "INSERT INTO users (name, role, token_sha256, created_at) VALUES (?, 'artist', ?, ?) RETURNING id",
      name,
      `sha-${name}`,
      Date.now(),
    );
  const a = add('Ana');
  const b = add('Ben');
  assert.ok(a && b && b.id > a.id, 'INTEGER PRIMARY KEY numbers rows as SQLite does');
  assert.throws(
    () => add('ANA'),
    (err: Error & { code?: string }) => err.code === '23505',
    'NOCASE: "ANA" is "Ana"',
  );
  assert.equal(pg.one<{ name: string }>('SELECT name FROM users WHERE name = ?', 'ana')?.name, 'Ana');

  pg.run(
    "INSERT INTO instances (id, name, url, kind, api_base, api_base_local, created_at, updated_at) VALUES ('i1', 'cloud', 'runpod://x', 'runpod', 'https://a', 1, 0, 0)",
  );
  pg.run("UPDATE instances SET api_base = 'https://b' WHERE id = 'i1'");
  assert.equal(
    pg.one<{ l: number }>("SELECT api_base_local AS l FROM instances WHERE id = 'i1'")?.l,
    0,
    'a changed base is no longer local',
  );
  pg.run("UPDATE instances SET api_base = 'https://c', api_base_local = 1 WHERE id = 'i1'");
  assert.equal(
    pg.one<{ l: number }>("SELECT api_base_local AS l FROM instances WHERE id = 'i1'")?.l,
    1,
    'unless the same update marks it',
  );
  pg.run("UPDATE instances SET name = 'cloud-2' WHERE id = 'i1'");
  assert.equal(
    pg.one<{ l: number }>("SELECT api_base_local AS l FROM instances WHERE id = 'i1'")?.l,
    1,
    'another change keeps it',
  );
});

test('hook deliveries take the late event on both stores (0020), keep numbering ids, and still refuse an unknown event', {
  timeout: 60_000,
}, () => {
  const lite = openDatabase(join(dir.path, 'hooks.sqlite'), systemClock);
  try {
    for (const db of [lite, pg]) {
      const add = (event: string, key: string) =>
        db.one<{ id: number }>(
          `INSERT INTO hook_deliveries (hook_id, job_id, event, dedupe_key, payload_json, created_at, updated_at)
            VALUES ('h', 'P/ep101', ?, ?, '{}', 0, 0) RETURNING id`,
          event,
          key,
        );
      const a = add('completed', 'k1');
      const b = add('late', 'due:1');
      assert.ok(a && b && Number(b.id) > Number(a.id), 'a late delivery is numbered after the others');
      assert.throws(() => add('exploded', 'k2'), 'the CHECK still names the events');
    }
  } finally {
    lite.close();
  }
});

test('the runner records each migration once on PostgreSQL, and refuses an edited one or a newer schema in words', {
  timeout: 60_000,
}, () => {
  assert.deepEqual(
    pg.all<{ id: number }>('SELECT id FROM schema_migrations ORDER BY id').map((r) => r.id),
    MIGRATIONS.map((m) => m.id),
  );
  assert.equal(migrate(pg, systemClock), 0, 'a second open applies nothing');
  const edited = MIGRATIONS.map((m, i) => (i === 0 ? { ...m, sql: `${m.sql}\n-- tweak` } : m));
  assert.throws(
    () => migrate(pg, systemClock, edited),
    (err: unknown) =>
      err instanceof ShotfarmError && err.code === 'storage' && /0001-initial was edited/.test(err.message),
  );
  const future = openPostgresDb(cluster.createDatabase('schema_future'));
  try {
    migrate(future, systemClock, [
      ...MIGRATIONS,
      { id: 999, name: '0999-future', sql: 'CREATE TABLE future (x INTEGER)' },
    ]);
    assert.throws(() => migrate(future, systemClock), /newer Shotfarm/);
  } finally {
    future.close();
  }
});

/**
 * PostgreSQL's plan for `sql` with the planner told to avoid sorts and table scans: a plan that
 * still sorts has no index in the statement's order.
 */
function planWithoutSorts(sql: string, ...params: unknown[]): string[] {
  return pg.transaction(() => {
    pg.exec('SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off; SET LOCAL enable_incremental_sort = off');
    return pg.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, ...params).map((r) => r['QUERY PLAN']);
  });
}

test("the queue's head is read off an index on both stores, never a sort of every queued job", () => {
  // Every dispatch pass reads it. With the planner told to avoid sorts and table scans, a plan that
  // still sorts has no index in the queue's order (PostgreSQL's rowid is a column the index must
  // name: without it, 20 ms a pass at 20k queued).
  const plan = planWithoutSorts(SQL_CANDIDATES, 16, 0);
  assert.ok(
    plan.some((l) => /Index Scan using jobs_runnable/.test(l)),
    plan.join('\n'),
  );
  assert.ok(!plan.some((l) => /Sort/.test(l)), plan.join('\n'));
  const lite = openDatabase(join(dir.path, 'queue-head.sqlite'), systemClock);
  try {
    const litePlan = lite.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${SQL_CANDIDATES}`, 16, 0).map((r) => r.detail);
    assert.ok(
      litePlan.some((d) => /INDEX jobs_runnable/.test(d)),
      litePlan.join('\n'),
    );
    assert.ok(!litePlan.some((d) => /TEMP B-TREE/.test(d)), litePlan.join('\n'));
  } finally {
    lite.close();
  }
});

test('a walk of the whole queue is read off jobs_queued_age on PostgreSQL, the rowid bounding it within one enqueue time', () => {
  // The blocked-jobs sweep reads a chunk every few seconds. Without the rowid in the index a chunk
  // from the middle of a 100k-job import (one enqueue time) reads and sorts all of it.
  const same = planWithoutSorts(SQL_QUEUED_SAME_TIME, 0, 0, 125);
  assert.ok(
    same.some((l) => /Index Scan using jobs_queued_age/.test(l)),
    same.join('\n'),
  );
  assert.ok(
    same.some((l) => /Index Cond: .*rowid > /.test(l)),
    same.join('\n'),
  );
  assert.ok(!same.some((l) => /Sort/.test(l)), same.join('\n'));
  const later = planWithoutSorts(SQL_QUEUED_LATER, 0, 125);
  assert.ok(
    later.some((l) => /Index Scan using jobs_queued_age/.test(l)),
    later.join('\n'),
  );
  assert.ok(!later.some((l) => /Sort/.test(l)), later.join('\n'));
});
