/**
 * Each table's SQL lives in one module: a statement naming a table (`FROM t`, `INTO t`, `UPDATE t`,
 * `JOIN t`) anywhere else in electron/ or shared/ is a second place where that table's shape and
 * rules are written down. The tables come from the migrations, so a new table without an owner
 * fails too. The exceptions are listed below, each with its reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { MIGRATIONS } from '../electron/engine/store/migrations/index.js';
import { REPO } from './helpers/engine.js';

const STORE = 'electron/engine/store';

/** Table → the one module that holds its SQL. */
const OWNERS: Readonly<Record<string, string>> = {
  jobs: `${STORE}/job-store.ts`,
  attempts: `${STORE}/attempt-store.ts`,
  instances: `${STORE}/instance-store.ts`,
  templates: `${STORE}/template-store.ts`,
  assets: `${STORE}/asset-store.ts`,
  projects: `${STORE}/shot-store.ts`,
  episodes: `${STORE}/shot-store.ts`,
  shots: `${STORE}/shot-store.ts`,
  settings: `${STORE}/settings-store.ts`,
  hook_deliveries: `${STORE}/delivery-store.ts`,
  // Migration 0020's rebuild of hook_deliveries (a CHECK changed), renamed to it in the same migration.
  hook_deliveries_0020: `${STORE}/delivery-store.ts`,
  instance_node_lists: `${STORE}/instance-store.ts`,
  users: `${STORE}/user-store.ts`,
  uploads: `${STORE}/upload-store.ts`,
  // Written only with a state change, by the state door, in the same transaction.
  job_events: 'electron/engine/job-state.ts',
  // Bumps, moves to the top and their undos, written with the order change itself.
  job_order_changes: `${STORE}/job-store.ts`,
  // Every pause, stop and resume, written with the farm state's settings row (settings/farm-state.ts).
  farm_state_changes: `${STORE}/farm-state-history.ts`,
  // The forecast's late marks, read and written with the jobs it forecasts (forecast/forecaster.ts).
  forecast_late: `${STORE}/job-store.ts`,
  // Several engines on one PostgreSQL farm: who they are and which workstation each drives (issue 27).
  engines: `${STORE}/lease-store.ts`,
  workstation_leases: `${STORE}/lease-store.ts`,
  schema_migrations: `${STORE}/migrate.ts`,
  // Measured VRAM per attempt and the operator's pins: the learned need's memory (issue 28).
  vram_samples: `${STORE}/vram-sample-store.ts`,
  template_vram_pins: `${STORE}/vram-sample-store.ts`,
};

/** Statements allowed outside their table's module, exactly as they are written, with why. */
const EXCEPTIONS: readonly { file: string; clause: string; why: string }[] = [
  { file: 'electron/engine/job-state.ts', clause: 'FROM jobs', why: 'the state door reads the state it guards…' },
  {
    file: 'electron/engine/job-state.ts',
    clause: 'UPDATE jobs',
    why: '…and changes it with its event row, in one transaction (architecture-state-door)',
  },
  {
    file: `${STORE}/attempt-store.ts`,
    clause: 'JOIN jobs',
    why: "an attempt shown with its job's names and state: recovery, the timeline, the run log",
  },
  {
    file: `${STORE}/asset-store.ts`,
    clause: 'JOIN jobs',
    why: "a ledger row shown with its job's shot, stage and take: the Ledger, the freeze, the export",
  },
  {
    file: `${STORE}/job-store.ts`,
    clause: 'FROM job_events',
    why: 'an order change records the newest state change it follows, so the history shows both in order',
  },
  {
    file: `${STORE}/upload-store.ts`,
    clause: 'FROM jobs',
    why: "the upload sweep keeps every file a job's inputs name (NOT EXISTS over inputs_json)",
  },
];

/** Every table the migrations create. */
export function migrationTables(): string[] {
  return MIGRATIONS.flatMap((m) =>
    [...m.sql.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)/g)].map((x) => x[1] as string),
  );
}

/** Clauses naming one of `tables`, with their line. SQL keywords are written in capitals throughout. */
export function tableClauses(
  text: string,
  tables: readonly string[],
): { clause: string; table: string; line: number }[] {
  const out: { clause: string; table: string; line: number }[] = [];
  text.split('\n').forEach((l, i) => {
    for (const m of l.matchAll(/\b(FROM|INTO|UPDATE|JOIN)\s+(\w+)\b/g)) {
      const table = m[2] as string;
      if (tables.includes(table)) out.push({ clause: `${m[1]} ${table}`, table, line: i + 1 });
    }
  });
  return out;
}

/** The clauses of `file` that are neither in their table's module nor a listed exception. */
export function misplaced(file: string, text: string, tables: readonly string[]): string[] {
  return tableClauses(text, tables)
    .filter((c) => OWNERS[c.table] !== file && !EXCEPTIONS.some((x) => x.file === file && x.clause === c.clause))
    .map((c) => `${file}:${c.line} ${c.clause} (belongs in ${OWNERS[c.table] ?? 'no module yet'})`);
}

/** Where the migrations' PostgreSQL texts live (store/postgres/schema-dialect.ts OWN_TEXT). */
const SCHEMA_DIALECT = `${STORE}/postgres/schema-dialect.ts`;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    // Migrations create and alter every table: they are the schema, not a second owner — and so
    // are their PostgreSQL texts (SCHEMA_DIALECT).
    if (e.isDirectory()) return e.name === 'migrations' ? [] : sources(full);
    return /\.tsx?$/.test(e.name) && relative(REPO, full) !== SCHEMA_DIALECT ? [full] : [];
  });
}

test("each table's SQL lives in its store module (the state door and listed joins aside)", () => {
  const tables = migrationTables();
  assert.deepEqual(
    tables.filter((t) => !OWNERS[t]),
    [],
    'every table the migrations create has an owner',
  );
  const offenders = ['electron', 'shared']
    .flatMap((d) => sources(join(REPO, d)))
    .flatMap((full) => {
      const file = relative(REPO, full);
      return misplaced(file, readFileSync(full, 'utf8'), tables);
    });
  assert.deepEqual(offenders, []);
});

test('the table-owner check notices SQL outside its module, and a join that is not listed', () => {
  const tables = migrationTables();
  assert.ok(tables.includes('jobs') && tables.includes('hook_deliveries'));
  const query = "const r = stmt(db, 'SELECT state FROM jobs WHERE id = ?').get(id);";
  assert.deepEqual(misplaced('electron/engine/scheduler/x.ts', query, tables), [
    'electron/engine/scheduler/x.ts:1 FROM jobs (belongs in electron/engine/store/job-store.ts)',
  ]);
  assert.deepEqual(misplaced(`${STORE}/job-store.ts`, query, tables), [], 'in its own module');
  const join = 'SELECT a.* FROM assets a JOIN jobs j ON j.id = a.job_id';
  assert.deepEqual(misplaced(`${STORE}/asset-store.ts`, join, tables), [], 'a listed join');
  assert.equal(
    misplaced(`${STORE}/template-store.ts`, join, tables).length,
    2,
    'the same query elsewhere: both tables',
  );
  assert.equal(
    misplaced(`${STORE}/asset-store.ts`, 'UPDATE jobs SET rank = 0', tables).length,
    1,
    'a join exception is not a licence to write',
  );
  assert.deepEqual(
    misplaced('electron/cli/x.ts', 'INSERT OR IGNORE INTO hook_deliveries (id) VALUES (1)', tables).length,
    1,
  );
  assert.deepEqual(
    tableClauses('// read from jobs, update the instances', tables),
    [],
    'prose in lower case is not SQL',
  );
});

/**
 * Where an SQL statement may be written at all: the store's adapters (electron/engine/store/, both
 * dialects), the state door (job-state.ts, which owns job_events, see OWNERS) and the data folder's
 * lock (lock/engine-lock.ts: its own SQLite lock file, not the farm's store). A statement anywhere
 * else — even one naming no table, a PRAGMA, a transaction, a schema change — runs beside the store
 * port, where one of the two stores may not understand it.
 */
const SQL_PLACES: readonly string[] = [
  `${STORE}/`,
  'electron/engine/job-state.ts',
  'electron/engine/lock/engine-lock.ts',
];

/** A string literal opening with an SQL statement's first words (capitals, as the store writes them). */
const STATEMENT =
  /['"`]\s*(SELECT|INSERT (?:OR \w+ )?INTO|UPDATE \w+ SET|DELETE FROM|(?:CREATE|ALTER|DROP) (?:TABLE|INDEX|UNIQUE INDEX|TRIGGER|FUNCTION|VIEW|SCHEMA)|CREATE OR REPLACE|PRAGMA|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE SAVEPOINT|TRUNCATE|VACUUM|LISTEN|NOTIFY|WITH (?:RECURSIVE )?\w+ AS)\b/g;

/** The SQL statements of `file` written outside the places that may hold them, with their line. */
export function statementsOutsideStore(file: string, text: string): string[] {
  if (SQL_PLACES.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p))) return [];
  return text
    .split('\n')
    .flatMap((l, i) => [...l.matchAll(STATEMENT)].map((m) => `${file}:${i + 1} ${m[1]} (SQL belongs in ${STORE}/)`));
}

test('SQL statements are written only in the store adapters, the state door and the lock file', () => {
  const offenders = ['electron', 'shared'].flatMap((d) =>
    sources(join(REPO, d)).flatMap((full) => {
      const file = relative(REPO, full);
      return statementsOutsideStore(file, readFileSync(full, 'utf8'));
    }),
  );
  assert.deepEqual(offenders, []);
});

test('a planted SQL statement outside the store adapters is caught, whether or not it names a table', () => {
  const planted = [
    "db.exec('PRAGMA foreign_keys = OFF');",
    'db.run(`ALTER TABLE jobs ADD COLUMN note TEXT`);',
    'db.one("SELECT 1 AS ok");',
    "db.exec('BEGIN IMMEDIATE');",
    "db.all('WITH recent AS (SELECT 1) SELECT * FROM recent');",
  ].join('\n');
  assert.deepEqual(statementsOutsideStore('electron/engine/scheduler/x.ts', planted), [
    'electron/engine/scheduler/x.ts:1 PRAGMA (SQL belongs in electron/engine/store/)',
    'electron/engine/scheduler/x.ts:2 ALTER TABLE (SQL belongs in electron/engine/store/)',
    'electron/engine/scheduler/x.ts:3 SELECT (SQL belongs in electron/engine/store/)',
    'electron/engine/scheduler/x.ts:4 BEGIN (SQL belongs in electron/engine/store/)',
    'electron/engine/scheduler/x.ts:5 WITH recent AS (SQL belongs in electron/engine/store/)',
  ]);
  assert.deepEqual(statementsOutsideStore(`${STORE}/job-store.ts`, planted), [], 'in the store adapters');
  assert.deepEqual(statementsOutsideStore(`${STORE}/postgres/postgres-db.ts`, planted), [], 'either dialect');
  assert.deepEqual(
    statementsOutsideStore('electron/server/x.ts', "label('Select a template'); const m = 'DELETE'; // SELECT later"),
    [],
    'prose, a lone method name and comments are not statements',
  );
});
