/**
 * Prepared statements, prepared once per connection and reused (conventions §8). Keyed by the SQL
 * text, so the store modules just declare their SQL as constants. `one` and `all` say what shape a
 * query's rows have: the row types live next to the SQL in the store modules, and this is the only
 * place a row is cast to them.
 */
import type BetterSqlite3 from 'better-sqlite3';

/** The connection (store/database.ts's Db; named here so the migrations can use these without a cycle). */
type Db = BetterSqlite3.Database;

const cache = new WeakMap<Db, Map<string, BetterSqlite3.Statement>>();

export function stmt(db: Db, sql: string): BetterSqlite3.Statement {
  let perDb = cache.get(db);
  if (!perDb) {
    perDb = new Map();
    cache.set(db, perDb);
  }
  let s = perDb.get(sql);
  if (!s) {
    s = db.prepare(sql);
    perDb.set(sql, s);
  }
  return s;
}

/** The first row of a query, or undefined. */
export function one<T>(db: Db, sql: string, ...params: unknown[]): T | undefined {
  return stmt(db, sql).get(...params) as T | undefined;
}

/** Every row of a query. */
export function all<T>(db: Db, sql: string, ...params: unknown[]): T[] {
  return stmt(db, sql).all(...params) as T[];
}

/** The rows of a query one at a time (exports: 100k rows never sit in memory). */
export function each<T>(db: Db, sql: string, ...params: unknown[]): IterableIterator<T> {
  return stmt(db, sql).iterate(...params) as IterableIterator<T>;
}

/** A write; its result says how many rows changed. */
export function run(db: Db, sql: string, ...params: unknown[]): BetterSqlite3.RunResult {
  return stmt(db, sql).run(...params);
}
