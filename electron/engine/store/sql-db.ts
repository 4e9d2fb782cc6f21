/**
 * The store's connection seam: what the engine needs from a database, satisfied by SQLite
 * (better-sqlite3, the default) and by PostgreSQL (store/postgres/postgres-db.ts). Synchronous, as
 * the engine's store is: a transaction is a plain function call that either returns (committed)
 * or throws (rolled back), and nests as a savepoint.
 *
 * SQL is written once, in SQLite's dialect with `?` or `@name` parameters; the PostgreSQL adapter
 * translates the parameters. Where the dialects differ beyond that, the statement says so.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { NoticeMessage } from './postgres/bridge-protocol.js';

export interface SqlRunResult {
  /** Rows inserted, updated or deleted. (No last-insert id: use RETURNING, which both stores take.) */
  changes: number;
}

/**
 * What exists only because the store is one SQLite file: its online backup (`db export`) and its
 * pragmas. The PostgreSQL adapter answers `sqlite: null` — its backups are the DBA's pg_dump/PITR,
 * its settings the server's — so a caller says what it does on PostgreSQL instead.
 */
export interface SqliteOnly {
  /** A consistent copy of the live database to `file` (SQLite's online backup: the engine keeps running). */
  backup(file: string): Promise<void>;
  /** A pragma's rows, or with `simple` its first value (`journal_mode`, `schema_version`, …). */
  pragma(source: string, options?: { simple?: boolean }): unknown;
}

/**
 * What exists only on PostgreSQL, where several hosts can reach one database: the farm's one-engine
 * lock, a session-level advisory lock on a connection of its own (SQLite's is the OS lock on the
 * data folder's `engine.lock`, which cannot keep out an engine on another host).
 */
export interface PostgresOnly {
  /**
   * Takes the farm's lock, or confirms it is still held; after a lost connection (a server
   * restart ends the session, and the lock with it) takes it again. False when another engine
   * holds it. A server that cannot be reached throws (a storage fault). `shared`: the engines' lock
   * (several engines on one farm hold it at once; only an exclusive holder — a `db migrate` into the
   * database — keeps them out, and they keep it out).
   */
  tryFarmLock(shared?: boolean): boolean;
  /** Gives the farm's lock up. */
  releaseFarmLock(): void;
  /**
   * Hears the farm's channel from now on (LISTEN on a connection of its own, opened again after a
   * loss): every engine's notices, this one's own included, and "notices may have been missed"
   * after a reconnect — given to `onNotice` on the event loop, never inside a store call. True once
   * listening; false when the first try failed (it keeps trying). SQLite has none: one engine per
   * data folder, nobody else to hear.
   */
  listen(onNotice: (m: NoticeMessage) => void): boolean;
  /** A NOTIFY on the farm's channel; returns at once, sent in order on the listening connection. */
  notify(payload: string): void;
}

export interface SqlDb {
  /** Which store this is (for the few statements whose dialects differ). */
  readonly dialect: 'sqlite' | 'postgres';
  /** Whether a transaction is open on this connection (a nested call would be a savepoint). */
  readonly inTransaction: boolean;
  /** SQLite's own capabilities; null on PostgreSQL (see SqliteOnly). */
  readonly sqlite: SqliteOnly | null;
  /** PostgreSQL's own capabilities; null on SQLite (see PostgresOnly). */
  readonly postgres: PostgresOnly | null;
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
  /**
   * Runs fn's reads as one snapshot without the write lock (SQLite's deferred BEGIN under WAL), so
   * it never waits for a writer — another process holding the lock included. fn must not write.
   */
  readTransaction<T>(fn: () => T): T;
  close(): void;
  /**
   * Resolves once what the store ran on is gone after close (PostgreSQL: its worker thread has
   * exited). A process that ends with a worker thread still being torn down can hang in Node's own
   * exit clean-up, so an engine's close waits for this.
   */
  closed(): Promise<void>;
}

/**
 * A better-sqlite3 connection as a SqlDb. Each SQL text is prepared once per connection and reused
 * (conventions §8): the store modules declare their SQL as constants, and the hot path is a map
 * lookup and better-sqlite3's own call, as before the seam.
 */
export function sqliteSqlDb(conn: BetterSqlite3.Database): SqlDb {
  const cache = new Map<string, BetterSqlite3.Statement>();
  const stmt = (sql: string): BetterSqlite3.Statement => {
    let s = cache.get(sql);
    if (s === undefined) {
      s = conn.prepare(sql);
      cache.set(sql, s);
    }
    return s;
  };
  const sqlite: SqliteOnly = {
    backup: async (file) => {
      await conn.backup(file);
    },
    pragma: (source, options) => conn.pragma(source, options),
  };
  return {
    dialect: 'sqlite',
    get inTransaction() {
      return conn.inTransaction;
    },
    sqlite,
    postgres: null,
    one: <T>(sql: string, ...params: unknown[]) => stmt(sql).get(...params) as T | undefined,
    all: <T>(sql: string, ...params: unknown[]) => stmt(sql).all(...params) as T[],
    each: <T>(sql: string, ...params: unknown[]) => stmt(sql).iterate(...params) as IterableIterator<T>,
    run: (sql: string, ...params: unknown[]) => stmt(sql).run(...params),
    exec: (sql: string) => {
      conn.exec(sql);
    },
    // BEGIN IMMEDIATE: the write lock up front, so read-then-write is safe; better-sqlite3 makes a
    // nested transaction a savepoint itself.
    transaction: <T>(fn: () => T) => conn.transaction(fn).immediate(),
    readTransaction: <T>(fn: () => T) => conn.transaction(fn).deferred(),
    close: () => {
      if (conn.open) conn.close();
    },
    closed: () => Promise.resolve(),
  };
}
