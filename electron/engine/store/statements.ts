/**
 * Prepared statements, prepared once per connection and reused (conventions §8). Keyed by the SQL
 * text, so named query modules can just declare their SQL as constants.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Db } from './database.js';

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
