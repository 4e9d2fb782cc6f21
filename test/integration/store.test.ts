/**
 * SQLite's own store: the file's pragmas (WAL, synchronous=FULL, busy timeout), the migration chain
 * on better-sqlite3 and SQLite's query plans. SQLite-only by nature — PostgreSQL's schema, migration
 * chain and faults are postgres-schema, db-migrate-postgres and postgres-faults; the contract both
 * stores keep runs over both in the forEachStore files (docs/testing.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { sqliteSqlDb } from '../../electron/engine/store/sql-db.js';
import { join } from 'node:path';
import { ManualClock } from '../../electron/engine/clock.js';
import { openDatabase } from '../../electron/engine/store/database.js';
import { migrate } from '../../electron/engine/store/migrate.js';
import { MIGRATIONS } from '../../electron/engine/store/migrations/index.js';
import { SQL_CANDIDATES } from '../../electron/engine/store/job-store.js';
import { SQL_CREATED_FROM_ROWS } from '../../electron/engine/job-state.js';
import { ShotfarmError } from '../../shared/errors.js';
import { makeTempDir } from '../helpers/temp-dir.js';

test('the store opens in WAL mode with synchronous=FULL, foreign keys and a busy timeout', () => {
  const tmp = makeTempDir();
  try {
    const db = openDatabase(join(tmp.path, 'x.sqlite'), new ManualClock());
    assert.equal(db.sqlite?.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(db.sqlite?.pragma('synchronous', { simple: true }), 2);
    assert.equal(db.sqlite?.pragma('foreign_keys', { simple: true }), 1);
    assert.equal(db.sqlite?.pragma('busy_timeout', { simple: true }), 5000);
    db.close();
  } finally {
    tmp.cleanup();
  }
});

test('the migration chain replays on an empty database and records each hash', () => {
  const db = sqliteSqlDb(new Database(':memory:'));
  const applied = migrate(db, new ManualClock());
  assert.equal(applied, MIGRATIONS.length);
  const rows = db.all('SELECT id, sha256 FROM schema_migrations ORDER BY id') as { id: number; sha256: string }[];
  assert.deepEqual(
    rows.map((r) => r.id),
    MIGRATIONS.map((m) => m.id),
  );
  for (const r of rows) assert.match(r.sha256, /^[0-9a-f]{64}$/);
  assert.equal(migrate(db, new ManualClock()), 0, 'a second open applies nothing');
  for (const table of [
    'projects',
    'episodes',
    'shots',
    'templates',
    'jobs',
    'attempts',
    'job_events',
    'instances',
    'assets',
    'settings',
  ]) {
    assert.ok(db.one("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", table), table);
  }
});

test('a database whose applied migration was edited is refused', () => {
  const db = sqliteSqlDb(new Database(':memory:'));
  migrate(db, new ManualClock());
  const edited = MIGRATIONS.map((m, i) => (i === 0 ? { ...m, sql: `${m.sql}\n-- tweak` } : m));
  assert.throws(
    () => migrate(db, new ManualClock(), edited),
    (err: unknown) => {
      assert.ok(err instanceof ShotfarmError);
      assert.equal(err.code, 'storage');
      assert.match(err.message, /0001-initial was edited/);
      return true;
    },
  );
});

test('a database written by a newer Shotfarm is refused', () => {
  const db = sqliteSqlDb(new Database(':memory:'));
  migrate(db, new ManualClock(), [...MIGRATIONS, { id: 999, name: '0999-future', sql: 'CREATE TABLE future (x)' }]);
  assert.throws(() => migrate(db, new ManualClock()), /newer Shotfarm/);
});

test('a failing migration leaves no half-applied schema', () => {
  const db = sqliteSqlDb(new Database(':memory:'));
  migrate(db, new ManualClock());
  const broken = [
    ...MIGRATIONS,
    { id: MIGRATIONS.length + 1, name: '9999-broken', sql: 'CREATE TABLE half (x); THIS IS NOT SQL;' },
  ];
  assert.throws(() => migrate(db, new ManualClock(), broken));
  assert.equal(db.one("SELECT 1 FROM sqlite_master WHERE name = 'half'"), undefined);
  assert.equal((db.one('SELECT COUNT(*) AS n FROM schema_migrations') as { n: number }).n, MIGRATIONS.length);
});

test('the next-runnable-job query is answered from the jobs_runnable index, without sorting the queue', () => {
  const db = sqliteSqlDb(new Database(':memory:'));
  migrate(db, new ManualClock());
  const plan = db.all(`EXPLAIN QUERY PLAN ${SQL_CANDIDATES}`, 50, 0) as { detail: string }[];
  const text = plan.map((p) => p.detail).join(' | ');
  assert.match(text, /USING INDEX jobs_runnable/);
  assert.doesNotMatch(text, /TEMP B-TREE/, 'ordering must come from the index, not a sort');
});

test("an import's creation events read only the new job rows (a rowid range), never every stored job's id", () => {
  const db = sqliteSqlDb(new Database(':memory:'));
  migrate(db, new ManualClock());
  const text = (db.all(`EXPLAIN QUERY PLAN ${SQL_CREATED_FROM_ROWS}`, 0, 0) as { detail: string }[])
    .map((p) => p.detail)
    .join(' | ');
  assert.match(text, /SEARCH jobs USING INTEGER PRIMARY KEY \(rowid>\?\)/);
  assert.doesNotMatch(text, /SCAN jobs/, 'a walk of the id index would read every job ever stored');
});

test('the queue list in dispatch order does not sort the whole queue either', () => {
  const db = sqliteSqlDb(new Database(':memory:'));
  migrate(db, new ManualClock());
  const plan = db.all(
    "EXPLAIN QUERY PLAN SELECT * FROM jobs WHERE state = 'queued' ORDER BY priority DESC, rank ASC, enqueued_at ASC, rowid ASC LIMIT 100",
  ) as { detail: string }[];
  assert.doesNotMatch(plan.map((p) => p.detail).join(' | '), /TEMP B-TREE/);
});

test('each job written pays only for the indexes some query reads: jobs has no index on (shot_id, stage, take)', () => {
  const db = sqliteSqlDb(new Database(':memory:'));
  migrate(db, new ManualClock());
  const names = (
    db.all(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs' AND name NOT LIKE 'sqlite_%'",
    ) as {
      name: string;
    }[]
  ).map((r) => r.name);
  // Besides the id and the (project, episode, shot, stage, take) keys: the dispatcher's candidates,
  // a job's dependents, the fair-share scan, the blocked count, the longest-waiting queued jobs.
  assert.deepEqual(names.sort(), ['jobs_blocked', 'jobs_depends_on', 'jobs_fair', 'jobs_queued_age', 'jobs_runnable']);
});
