/**
 * Copying a whole farm from one store to another through the seam (sql-db.ts): SQLite into
 * PostgreSQL (`db migrate --to`), and PostgreSQL into a SQLite file (`db export` of a PostgreSQL
 * farm). Both stores already have this version's schema (the same migration chain); every table of
 * it is copied, parents before children, in multi-row INSERTs, ids kept; then each table's rows are
 * counted on both sides. The caller wraps the copy in one destination transaction and one source
 * snapshot, so a copy that fails or counts differently leaves nothing behind.
 *
 * The table list is the schema's own (the migrations' CREATE TABLEs, read from a reference copy of
 * the chain), never a hand list: a new table is copied without anyone touching this file, and a
 * table that must not be copied is named in NOT_COPIED with its reason (a test holds both).
 */
import Database from 'better-sqlite3';
import { ShotfarmError } from '../../../shared/errors.js';
import { migrate } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';
import { ROWID_TABLES } from './postgres/schema-dialect.js';
import { type SqlDb, sqliteSqlDb } from './sql-db.js';

/** Tables of the schema that are not copied, each with why. */
export const NOT_COPIED: Readonly<Record<string, string>> = {
  schema_migrations:
    'the destination applies the same migration chain itself before the copy, recording the same hashes: its schema history is its own, compared, not copied',
  engines:
    "the engines running a PostgreSQL farm now: a SQLite farm's engine is not one of them, and the engines that start on the moved farm register themselves",
  workstation_leases:
    'which engine drives each workstation now (and pins, PostgreSQL only): the moved farm starts with none, and its engines take their leases as they start',
};

export interface TableShape {
  name: string;
  columns: string[];
  /** The primary key's columns: rows are read in this order. */
  key: string[];
  /** Tables this one references (foreign keys), itself aside. */
  parents: string[];
}

export interface TableCount {
  table: string;
  source: number;
  destination: number;
}

/**
 * Every table the migration chain leaves, in the order it creates them: a table rebuilt under a
 * new name and renamed back (SQLite's way to change a CHECK, 0020) is the one table it was.
 */
export function schemaTables(): string[] {
  const tables: string[] = [];
  for (const m of MIGRATIONS)
    for (const x of m.sql.matchAll(
      /CREATE TABLE (?:IF NOT EXISTS )?(\w+)|DROP TABLE (?:IF EXISTS )?(\w+)|ALTER TABLE (\w+) RENAME TO (\w+)/g,
    )) {
      const [, created, dropped, from, to] = x;
      if (created) tables.push(created);
      else if (dropped) tables.splice(tables.indexOf(dropped), 1);
      else if (from && to) tables.splice(tables.indexOf(from), 1, to);
    }
  return tables;
}

let reference: TableShape[] | null = null;

/**
 * The copied tables with their columns, parents first: read from the chain applied to an
 * in-memory SQLite (SQLite's own catalogue of columns and foreign keys), once per process.
 */
export function copiedTables(): TableShape[] {
  if (reference) return reference;
  const db = sqliteSqlDb(new Database(':memory:'));
  try {
    migrate(db, { now: () => 0 });
    const shapes = schemaTables()
      .filter((t) => !(t in NOT_COPIED))
      .map((name): TableShape => {
        const cols = db.all<{ name: string; pk: number }>(
          'SELECT name, pk FROM pragma_table_info(?) ORDER BY cid',
          name,
        );
        const fks = db.all<{ table: string }>('SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)', name);
        return {
          name,
          // The rowid SQLite keeps beside the columns, which the store reads (the queue's order, the
          // ledger's position): a real column on PostgreSQL (schema-dialect.ts), copied both ways.
          columns: [...(ROWID_TABLES.includes(name) ? ['rowid'] : []), ...cols.map((c) => c.name)],
          key: cols
            .filter((c) => c.pk > 0)
            .sort((a, b) => a.pk - b.pk)
            .map((c) => c.name),
          parents: fks.map((f) => f.table).filter((t) => t !== name),
        };
      });
    reference = parentsFirst(shapes);
    return reference;
  } finally {
    db.close();
  }
}

/** Orders tables so each comes after the tables it references (a self-reference is deferred by the schema). */
export function parentsFirst(shapes: readonly TableShape[]): TableShape[] {
  const byName = new Map(shapes.map((s) => [s.name, s]));
  const out: TableShape[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (s: TableShape): void => {
    const seen = state.get(s.name);
    if (seen === 'done') return;
    if (seen === 'visiting')
      throw new Error(`The schema's foreign keys form a cycle through ${s.name}: no copy order exists.`);
    state.set(s.name, 'visiting');
    for (const p of s.parents) {
      const parent = byName.get(p);
      if (parent) visit(parent);
    }
    state.set(s.name, 'done');
    out.push(s);
  };
  for (const s of shapes) visit(s);
  return out;
}

/** Values per INSERT: under SQLite's 32,766 and PostgreSQL's 65,535 bound parameters. */
const MAX_PARAMS = 30_000;
const DEFAULT_BATCH_ROWS = 500;

/** A name from the schema, checked before it is put in SQL text (the schema's names are plain). */
function ident(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not a plain table or column name: ${name}`);
  return `"${name}"`;
}

export function countRows(db: SqlDb, table: string): number {
  return db.one<{ n: number }>(`SELECT COUNT(*) AS n FROM ${ident(table)}`)?.n ?? 0;
}

/** Copies one table's rows, in key order, in batches; returns how many. */
function copyTable(src: SqlDb, dst: SqlDb, t: TableShape, batchRows: number): number {
  const cols = t.columns.map(ident);
  const batch = dst.dialect === 'postgres' ? postgresBatch(t, batchRows) : valuesBatch(t, batchRows);
  let rows: Record<string, unknown>[] = [];
  let copied = 0;
  const flush = (): void => {
    if (rows.length === 0) return;
    batch.insert(dst, rows);
    copied += rows.length;
    rows = [];
  };
  const order = (t.key.length > 0 ? t.key : t.columns).map(ident).join(', ');
  for (const r of src.each<Record<string, unknown>>(
    `SELECT ${cols.join(', ')} FROM ${ident(t.name)} ORDER BY ${order}`,
  )) {
    rows.push(r);
    if (rows.length === batch.rows) flush();
  }
  flush();
  return copied;
}

interface Batch {
  rows: number;
  insert(dst: SqlDb, rows: readonly Record<string, unknown>[]): void;
}

/** A multi-row INSERT … VALUES with one parameter per value (SQLite: a local call, no parsing cost to speak of). */
function valuesBatch(t: TableShape, batchRows: number): Batch {
  const cols = t.columns.map(ident);
  const perInsert = Math.max(1, Math.min(batchRows, Math.floor(MAX_PARAMS / cols.length)));
  const row = `(${cols.map(() => '?').join(', ')})`;
  const text = (n: number): string =>
    `INSERT INTO ${ident(t.name)} (${cols.join(', ')}) VALUES ${Array.from({ length: n }, () => row).join(', ')}`;
  const full = text(perInsert);
  return {
    rows: perInsert,
    insert: (dst, rows) => {
      const values: unknown[] = [];
      for (const r of rows) for (const c of t.columns) values.push(r[c] ?? null);
      dst.run(rows.length === perInsert ? full : text(rows.length), values);
    },
  };
}

/**
 * PostgreSQL: the batch as ONE JSON parameter, spread into the table's own column types by the
 * server (json_populate_recordset) — one short statement per batch instead of tens of thousands of
 * bound values to parse and plan, about 4× faster here. Integers past 2^53 go as their digits,
 * byte arrays in bytea's hex form.
 */
function postgresBatch(t: TableShape, batchRows: number): Batch {
  const cols = t.columns.map(ident).join(', ');
  const text = `INSERT INTO ${ident(t.name)} (${cols}) SELECT ${cols} FROM json_populate_recordset(NULL::${ident(t.name)}, ?::json)`;
  const json = (_k: string, v: unknown): unknown => {
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number' && !Number.isFinite(v)) return String(v); // 'Infinity', 'NaN': double precision's own words
    if (v !== null && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer') {
      return `\\x${Buffer.from((v as { data: number[] }).data).toString('hex')}`;
    }
    return v;
  };
  return {
    rows: Math.max(1, batchRows * 4),
    insert: (dst, rows) => {
      dst.run(text, JSON.stringify(rows, json));
    },
  };
}

/**
 * Numbers new rows after the copied ones: PostgreSQL's identity columns (SQLite's INTEGER PRIMARY
 * KEY) keep their own counter, which explicit ids do not move.
 */
function resetIdentities(dst: SqlDb, tables: readonly TableShape[]): void {
  if (dst.dialect !== 'postgres') return; // SQLite numbers a rowid from the largest one present
  const identities = dst.all<{ t: string; c: string }>(
    "SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'",
  );
  const copied = new Set(tables.map((t) => t.name));
  for (const { t, c } of identities) {
    if (!copied.has(t)) continue;
    dst.one(
      `SELECT setval(pg_get_serial_sequence(?, ?), COALESCE((SELECT MAX(${ident(c)}) FROM ${ident(t)}), 0) + 1, false) AS v`,
      t,
      c,
    );
  }
}

export interface CopyOptions {
  /** Rows per INSERT (default 500, fewer for wide tables). */
  batchRows?: number;
  /** Called after each table, for progress. */
  onTable?: (count: TableCount) => void;
}

/**
 * Copies every table from src into dst, which must hold this version's schema and no rows. Run it
 * inside one dst transaction and one src snapshot; it throws (so the caller's transaction rolls
 * back) when a table's count differs afterwards.
 */
export function copyFarm(src: SqlDb, dst: SqlDb, o: CopyOptions = {}): TableCount[] {
  const tables = copiedTables();
  const counts: TableCount[] = [];
  for (const t of tables) {
    const source = countRows(src, t.name);
    try {
      copyTable(src, dst, t, o.batchRows ?? DEFAULT_BATCH_ROWS);
    } catch (err) {
      if (err instanceof ShotfarmError) throw err;
      throw new ShotfarmError(
        'storage',
        `Copying the table ${t.name} failed: ${(err as Error).message}. Nothing was written.`,
      );
    }
    const count = { table: t.name, source, destination: countRows(dst, t.name) };
    counts.push(count);
    o.onTable?.(count);
  }
  resetIdentities(dst, tables);
  const differ = counts.filter((c) => c.source !== c.destination);
  if (differ.length > 0) {
    const words = differ.map((c) => `${c.table}: ${c.source} in the source, ${c.destination} copied`).join('; ');
    throw new ShotfarmError(
      'storage',
      `The copy does not match the source (${words}); it was rolled back and nothing was written.`,
      {
        details: { counts },
      },
    );
  }
  return counts;
}
