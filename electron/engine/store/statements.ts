/**
 * The store modules' statements, over the connection seam (sql-db.ts): `one(db, SQL, …)` reads as
 * the store has always been written, and the adapter prepares each SQL text once per connection.
 * `one` and `all` say what shape a query's rows have: the row types live next to the SQL in the
 * store modules, and this is the only place a row is cast to them.
 */
import type { SqlDb, SqlRunResult } from './sql-db.js';

/** The first row of a query, or undefined. */
export function one<T>(db: SqlDb, sql: string, ...params: unknown[]): T | undefined {
  return db.one<T>(sql, ...params);
}

/** Every row of a query. */
export function all<T>(db: SqlDb, sql: string, ...params: unknown[]): T[] {
  return db.all<T>(sql, ...params);
}

/** The rows of a query one at a time (exports: 100k rows never sit in memory). */
export function each<T>(db: SqlDb, sql: string, ...params: unknown[]): IterableIterator<T> {
  return db.each<T>(sql, ...params);
}

/** A write; its result says how many rows changed. */
export function run(db: SqlDb, sql: string, ...params: unknown[]): SqlRunResult {
  return db.run(sql, ...params);
}
