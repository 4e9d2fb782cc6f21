/**
 * The store's connection seam: what the store modules need from a database, satisfied by SQLite
 * (better-sqlite3, the default) and by PostgreSQL (store/postgres/postgres-db.ts). Synchronous, as
 * the engine's store is: a transaction is a plain function call that either returns (committed)
 * or throws (rolled back), and nests as a savepoint.
 *
 * SQL is written once, in SQLite's dialect with `?` or `@name` parameters; the PostgreSQL adapter
 * translates the parameters. Where the dialects differ beyond that, the statement says so.
 */
import { type Db, inTransaction } from './database.js';
import { all, each, one, run } from './statements.js';

export interface SqlRunResult {
  /** Rows inserted, updated or deleted. (No last-insert id: use RETURNING, which both stores take.) */
  changes: number;
}

export interface SqlDb {
  /** Which store this is (for the few statements whose dialects differ). */
  readonly dialect: 'sqlite' | 'postgres';
  /** The first row of a query, or undefined. */
  one<T>(sql: string, ...params: unknown[]): T | undefined;
  /** Every row of a query. */
  all<T>(sql: string, ...params: unknown[]): T[];
  /** The rows one at a time (exports): never all in memory. Finish or break the loop: it holds the connection. */
  each<T>(sql: string, ...params: unknown[]): IterableIterator<T>;
  /** A write. */
  run(sql: string, ...params: unknown[]): SqlRunResult;
  /** Statements without parameters (schema changes), several separated by `;`. */
  exec(sql: string): void;
  /**
   * Runs fn as one transaction that holds the store's write lock from its start (SQLite's BEGIN
   * IMMEDIATE), so read-then-write inside it is safe; inside another transaction, a savepoint.
   */
  transaction<T>(fn: () => T): T;
  close(): void;
}

/** The SQLite connection (store/database.ts openDatabase) as a SqlDb: today's prepared-statement cache and transactions. */
export function sqliteSqlDb(db: Db): SqlDb {
  return {
    dialect: 'sqlite',
    one: <T>(sql: string, ...params: unknown[]) => one<T>(db, sql, ...params),
    all: <T>(sql: string, ...params: unknown[]) => all<T>(db, sql, ...params),
    each: <T>(sql: string, ...params: unknown[]) => each<T>(db, sql, ...params),
    run: (sql: string, ...params: unknown[]) => ({ changes: run(db, sql, ...params).changes }),
    exec: (sql: string) => {
      db.exec(sql);
    },
    // better-sqlite3 makes a nested transaction a savepoint itself.
    transaction: <T>(fn: () => T) => inTransaction(db, fn),
    close: () => db.close(),
  };
}
