/**
 * The PostgreSQL store behind the SqlDb seam (store/sql-db.ts): one connection owned by a worker
 * thread, called synchronously (sync-bridge.ts). Statements keep the store's SQLite text; their
 * parameters are translated (placeholders.ts) and each is prepared once per connection.
 *
 * Transactions match SQLite's BEGIN IMMEDIATE: every transaction takes one advisory lock first, so
 * writing transactions run one after another and read-then-write inside one is safe, as the store
 * modules assume. A serialization failure or deadlock (40001, 40P01) rolls the transaction back;
 * it is run again (up to `conflictRetries` times) before it becomes a storage fault — so fn must
 * only read and write the database, as every store transaction does.
 */
import { bindValues, translate } from './placeholders.js';
import { isConflictCode, PostgresStoreError } from './postgres-error.js';
import { SyncBridge } from './sync-bridge.js';
import type { SqlDb, SqlRunResult } from '../sql-db.js';

export interface PostgresDbOptions {
  callTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** The advisory lock every transaction takes (one per farm database; default fixed). */
  writeLockKey?: number;
  /** Runs of a transaction rolled back by a conflict before it is a fault (default 3). */
  conflictRetries?: number;
}

/** "SHOTFARM" in a bigint's low bits: the farm's write lock, like SQLite's one writer. */
const DEFAULT_WRITE_LOCK = 0x5f4f_7f41;
const FETCH_ROWS = 500;
const MAX_PREPARED = 1000;

export class PostgresDb implements SqlDb {
  readonly dialect = 'postgres';
  private readonly bridge: SyncBridge;
  /** The open transaction's connection (null: none open, statements autocommit). */
  private session: string | null = null;
  private depth = 0;
  private readonly names = new Map<string, string>();
  private cursors = 0;
  private readonly lockKey: number;
  private readonly retries: number;

  constructor(url: string, opts: PostgresDbOptions = {}) {
    this.lockKey = opts.writeLockKey ?? DEFAULT_WRITE_LOCK;
    this.retries = opts.conflictRetries ?? 3;
    this.bridge = new SyncBridge(url, {
      writeLockKey: this.lockKey,
      callTimeoutMs: opts.callTimeoutMs,
      connectTimeoutMs: opts.connectTimeoutMs,
    });
  }

  one<T>(sql: string, ...params: unknown[]): T | undefined {
    return this.query(sql, params).rows[0] as T | undefined;
  }

  all<T>(sql: string, ...params: unknown[]): T[] {
    return this.query(sql, params).rows as T[];
  }

  run(sql: string, ...params: unknown[]): SqlRunResult {
    return { changes: this.query(sql, params).rowCount };
  }

  exec(sql: string): void {
    this.autocommitRetry(() => this.bridge.call({ op: 'exec', text: sql, session: this.session }));
  }

  *each<T>(sql: string, ...params: unknown[]): IterableIterator<T> {
    // A cursor lives in a transaction: the loop's own when none is open.
    const own = this.depth === 0;
    if (own) this.begin('BEGIN');
    const cursor = `shotfarm_cursor_${++this.cursors}`;
    let failed = false;
    try {
      const t = translate(sql);
      this.bridge.call({
        op: 'query',
        name: '',
        text: `DECLARE ${cursor} NO SCROLL CURSOR FOR ${t.text}`,
        values: bindValues(t, params, sql),
        session: this.session,
      });
      for (;;) {
        const batch = this.bridge.call({
          op: 'exec',
          text: `FETCH ${FETCH_ROWS} FROM ${cursor}`,
          session: this.session,
        }).rows;
        for (const row of batch) yield row as T;
        if (batch.length < FETCH_ROWS) break;
      }
      if (!own) this.bridge.call({ op: 'exec', text: `CLOSE ${cursor}`, session: this.session });
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      // A loop left early (break, return, throw) ends here too.
      if (own) this.end(failed ? 'ROLLBACK' : 'COMMIT');
    }
  }

  transaction<T>(fn: () => T): T {
    if (this.depth > 0) return this.savepoint(fn);
    for (let run = 0; ; run++) {
      this.begin(`BEGIN; SELECT pg_advisory_xact_lock(${this.lockKey})`);
      try {
        const result = fn();
        this.end('COMMIT');
        return result;
      } catch (err) {
        if (this.session !== null) this.end('ROLLBACK');
        if (run < this.retries && err instanceof PostgresStoreError && isConflictCode(err.code)) continue;
        throw err;
      }
    }
  }

  close(): void {
    this.bridge.close();
  }

  /** One round trip to the worker thread and back, without the database (what the bridge itself costs). */
  ping(): void {
    this.bridge.call({ op: 'ping' });
  }

  private savepoint<T>(fn: () => T): T {
    const name = `shotfarm_sp_${this.depth}`;
    this.bridge.call({ op: 'exec', text: `SAVEPOINT ${name}`, session: this.session });
    this.depth++;
    try {
      const result = fn();
      this.bridge.call({ op: 'exec', text: `RELEASE SAVEPOINT ${name}`, session: this.session });
      return result;
    } catch (err) {
      try {
        this.bridge.call({
          op: 'exec',
          text: `ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`,
          session: this.session,
        });
      } catch {
        // The connection is gone with the whole transaction: the first error is the one to tell.
      }
      throw err;
    } finally {
      this.depth--;
    }
  }

  private begin(text: string): void {
    this.session = this.bridge.call({ op: 'begin', text }).session;
    this.depth = 1;
  }

  /** Ends the open transaction; after a COMMIT that failed the transaction is over all the same. */
  private end(text: 'COMMIT' | 'ROLLBACK'): void {
    const session = this.session;
    this.session = null;
    this.depth = 0;
    if (session === null) return;
    try {
      this.bridge.call({ op: 'end', text, session });
    } catch (err) {
      if (text === 'COMMIT') throw err;
      // A rollback that cannot reach the server: the lost connection rolled the transaction back.
    }
  }

  private query(sql: string, params: unknown[]) {
    const t = translate(sql);
    const values = bindValues(t, params, sql);
    let name = this.names.get(sql);
    if (name === undefined) {
      // Statements built at run time (filters, IN lists) would each stay prepared on the server for
      // the connection's life: past a bound, a new text goes unnamed (parsed at each call).
      name = this.names.size < MAX_PREPARED ? `shotfarm_${this.names.size + 1}` : '';
      if (name) this.names.set(sql, name);
    }
    const req = { op: 'query', name, text: t.text, values, session: this.session } as const;
    return this.autocommitRetry(() => this.bridge.call(req));
  }

  /** A statement outside a transaction that the server rolled back as a conflict is run again. */
  private autocommitRetry<R>(call: () => R): R {
    for (let run = 0; ; run++) {
      try {
        return call();
      } catch (err) {
        if (
          this.session === null &&
          run < this.retries &&
          err instanceof PostgresStoreError &&
          isConflictCode(err.code)
        )
          continue;
        throw err;
      }
    }
  }
}

/** Opens the PostgreSQL store and checks that it answers (a wrong URL or password fails here, not at the first job). */
export function openPostgresDb(url: string, opts: PostgresDbOptions = {}): PostgresDb {
  const db = new PostgresDb(url, opts);
  try {
    db.one('SELECT 1 AS ok');
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}
