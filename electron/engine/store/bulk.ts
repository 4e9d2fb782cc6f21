/**
 * Many rows per statement (an import's 100k jobs, their events, their shots): one statement a row
 * costs a round trip each on PostgreSQL (the synchronous bridge) and a call each on SQLite. Rows go
 * in chunks of a few fixed sizes, so each statement's text is one of a few — prepared once per
 * connection, never one text per import — and every chunk stays far inside PostgreSQL's 65,535
 * parameters per statement and SQLite's 32,766.
 */
import type { Db } from './database.js';
import { all, one, run } from './statements.js';

/** Chunk sizes, largest first: a list of n rows is ⌊n/256⌋ statements of 256, then of 16, then single rows. */
const SIZES = [256, 16, 1] as const;

/** The most parameters one statement of this module may carry (PostgreSQL's limit is 65,535). */
const MAX_PARAMS = 16_384;

/** `(?, ?, ?), (?, ?, ?)`: `rows` groups of `columns` positional parameters. */
export function valueRows(columns: number, rows: number): string {
  const one = `(${Array.from({ length: columns }, () => '?').join(', ')})`;
  return Array.from({ length: rows }, () => one).join(', ');
}

/** `?, ?, ?`: a list of `n` positional parameters (an IN list). */
export function paramList(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/**
 * Calls `write(chunk, sqlFor)` for consecutive chunks of `items` whose sizes come from a fixed set;
 * `sql(size)` gives the statement's text for a chunk of that size (cached here, so a text is built
 * once per size). `paramsPerItem` bounds the chunk so one statement never passes MAX_PARAMS.
 */
export function inChunks<T>(
  items: readonly T[],
  paramsPerItem: number,
  sql: (size: number) => string,
  write: (chunk: readonly T[], text: string) => void,
): void {
  const texts = new Map<number, string>();
  const sizes = SIZES.map((s) => Math.max(1, Math.min(s, Math.floor(MAX_PARAMS / paramsPerItem))));
  let at = 0;
  for (const size of sizes) {
    while (items.length - at >= size) {
      let text = texts.get(size);
      if (text === undefined) texts.set(size, (text = sql(size)));
      write(items.slice(at, at + size), text);
      at += size;
    }
  }
}

/**
 * A lookup over many keys with an IN list of a fixed size: the last chunk is padded by repeating
 * its last key (a key twice in an IN list matches once), so every statement has the one text.
 */
export function inPadded<T>(keys: readonly T[], size: number, read: (chunk: readonly T[]) => void): void {
  for (let at = 0; at < keys.length; at += size) {
    const chunk = keys.slice(at, at + size);
    const last = chunk[chunk.length - 1] as T;
    while (chunk.length < size) chunk.push(last);
    read(chunk);
  }
}

/**
 * PostgreSQL's way to many rows: one array parameter per column, read back as rows by
 * `unnest(?::text[], ?::bigint[], …)` in an `INSERT … SELECT`. A chunk is one statement whatever
 * its length (one text, prepared once), its parameters are the columns (not one per value, which
 * the server binds and plans one by one), and the server reads the rows in array order, so ids
 * drawn by the insert follow the order given as with VALUES lists. Measured on 20k jobs: the
 * server's executor alone took about 40 % less than the same rows as 256-row VALUES statements
 * (docs/performance.md#import-at-scale).
 */
export function unnestRows(types: readonly string[]): string {
  return `SELECT * FROM unnest(${types.map((t) => `?::${t}[]`).join(', ')})`;
}

/** Rows per array statement: a 100k-row import is 20 round trips, each message a few MB at most. */
const ARRAY_ROWS = 5000;

/**
 * Calls `write(columns, chunk)` for consecutive chunks of `items`, `columns[c]` holding column c of
 * every row of the chunk (`row` gives a row's values in column order): the parameters of an
 * `unnestRows` statement. Pass `columns` as ONE argument (`all(db, sql, columns)`), so a one-column
 * statement's array is not taken for the positional values themselves.
 */
export function inColumnChunks<T>(
  items: readonly T[],
  width: number,
  row: (item: T) => readonly unknown[],
  write: (columns: unknown[][], chunk: readonly T[]) => void,
): void {
  for (let at = 0; at < items.length; at += ARRAY_ROWS) {
    const chunk = items.slice(at, at + ARRAY_ROWS);
    const columns: unknown[][] = Array.from({ length: width }, () => new Array(chunk.length));
    for (let i = 0; i < chunk.length; i++) {
      const values = row(chunk[i] as T);
      if (values.length !== width) throw new Error(`a row of ${values.length} values for ${width} columns`);
      for (let c = 0; c < width; c++) (columns[c] as unknown[])[i] = values[c];
    }
    write(columns, chunk);
  }
}

/** One bulk insert written for both stores: its VALUES text by chunk size (SQLite), its `unnestRows` text (PostgreSQL). */
export interface BulkInsert<T> {
  /** A row's values in column order. */
  row: (item: T) => readonly unknown[];
  values: (rows: number) => string;
  arrays: string;
  /** The statements end in RETURNING: their rows are collected (else they are run). */
  returning?: boolean;
}

/** Calls `write(sql, params)` for each statement that writes `items` through `insert`, as each store writes many rows best. */
function eachStatement<T>(
  db: Db,
  items: readonly T[],
  insert: BulkInsert<T>,
  write: (sql: string, params: unknown[]) => void,
): void {
  const width = items.length > 0 ? insert.row(items[0] as T).length : 0;
  if (width === 0) return;
  // Parameters go as ONE argument (the list), so a one-column array is not taken for the list itself.
  if (db.dialect === 'postgres') inColumnChunks(items, width, insert.row, (columns) => write(insert.arrays, columns));
  else
    inChunks(items, width, insert.values, (chunk, sql) => {
      // One array of the chunk's size, filled in place (no spread of each row into a growing one).
      const values: unknown[] = new Array(chunk.length * width);
      let at = 0;
      for (const item of chunk) {
        const row = insert.row(item);
        for (let c = 0; c < width; c++) values[at++] = row[c];
      }
      write(sql, values);
    });
}

/**
 * Inserts `items` through `insert`, as each store writes many rows best — VALUES lists of a few
 * fixed sizes on SQLite, one array per column on PostgreSQL — and returns what the statements
 * return (their RETURNING rows, in statement order; none without RETURNING).
 */
export function insertRows<T, R = never>(db: Db, items: readonly T[], insert: BulkInsert<T>): R[] {
  const out: R[] = [];
  eachStatement(db, items, insert, (sql, params) => {
    if (insert.returning) out.push(...all<R>(db, sql, params));
    else run(db, sql, params);
  });
  return out;
}

/**
 * insertRows for statements without RETURNING: how many rows they wrote (a row an
 * `ON CONFLICT … DO NOTHING` skipped counts none).
 */
export function insertRowsCounted<T>(db: Db, items: readonly T[], insert: BulkInsert<T>): number {
  let written = 0;
  eachStatement(db, items, insert, (sql, params) => {
    written += run(db, sql, params).changes;
  });
  return written;
}

/**
 * SQLite's bulk insert that tells what it wrote without RETURNING (which buffers every row and
 * makes an object per row): the rows it wrote are the table's rows past `afterRowid`, its largest
 * rowid before the insert — the caller's transaction holds the write lock from its BEGIN
 * IMMEDIATE, so no other writer's row can be among them — and `written` counts them. `table` is
 * one of the store's own names, never input. (On PostgreSQL several engines write at once:
 * RETURNING it is.)
 */
export function insertRowsAfterLast<T>(
  db: Db,
  table: string,
  items: readonly T[],
  insert: BulkInsert<T>,
): { afterRowid: number; written: number } {
  const afterRowid = one<{ last: number | null }>(db, `SELECT MAX(rowid) AS last FROM ${table}`)?.last ?? 0;
  return { afterRowid, written: insertRowsCounted(db, items, insert) };
}
