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
import type { PostgresOnly, SqlDb, SqlRunResult } from '../sql-db.js';

export interface PostgresDbOptions {
  callTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** The advisory lock every transaction takes (one per farm database; default fixed). */
  writeLockKey?: number;
  /** Runs of a transaction rolled back by a conflict before it is a fault (default 3). */
  conflictRetries?: number;
  /** The farm's one-engine lock (a session-level advisory lock; default fixed, like the write lock). */
  farmLockKey?: number;
}

/** The channel engines on one database tell each other their changes on (NOTIFY is per database). */
export const FARM_CHANNEL = 'shotfarm_farm';

/** "SHOTFARM" in a bigint's low bits: the farm's write lock, like SQLite's one writer. */
const DEFAULT_WRITE_LOCK = 0x5f4f_7f41;
/** The farm's one-engine lock: another key of the same kind (advisory locks are per database). */
const DEFAULT_FARM_LOCK = 0x5f4f_7f46;
const FETCH_ROWS = 500;
const MAX_PREPARED = 1000;

export class PostgresDb implements SqlDb {
  readonly dialect = 'postgres';
  /** No SQLite file: backups are the server's (pg_dump, PITR), and there are no pragmas. */
  readonly sqlite = null;
  readonly postgres: PostgresOnly;
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
    const farmKey = opts.farmLockKey ?? DEFAULT_FARM_LOCK;
    this.postgres = {
      tryFarmLock: (shared = false) =>
        this.bridge.call({ op: 'farmLock', key: farmKey, shared }).rows[0]?.held === true,
      releaseFarmLock: () => void this.bridge.call({ op: 'farmUnlock' }),
      listen: (onNotice) => this.bridge.listen(FARM_CHANNEL, onNotice),
      notify: (payload) => this.bridge.notify(FARM_CHANNEL, payload),
    };
    this.bridge = new SyncBridge(url, {
      writeLockKey: this.lockKey,
      callTimeoutMs: opts.callTimeoutMs,
      connectTimeoutMs: opts.connectTimeoutMs,
    });
  }

  get inTransaction(): boolean {
    return this.depth > 0;
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
    return this.retryingConflicts(() =>
      this.ownTransaction(`BEGIN; SELECT pg_advisory_xact_lock(${this.lockKey})`, fn),
    );
  }

  /** A read-only snapshot without the farm's write lock; inside a transaction, simply part of it. */
  readTransaction<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    return this.ownTransaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', fn);
  }

  /** `fn` in a transaction begun with `begin`: committed when it returns, rolled back when it throws. */
  private ownTransaction<T>(begin: string, fn: () => T): T {
    this.begin(begin);
    try {
      const result = fn();
      this.end('COMMIT');
      return result;
    } catch (err) {
      if (this.session !== null) this.end('ROLLBACK');
      throw err;
    }
  }

  close(): void {
    this.bridge.close();
  }

  closed(): Promise<void> {
    return this.bridge.exited();
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

  /** A statement outside a transaction that the server rolled back as a conflict is run again (inside one, the transaction is). */
  private autocommitRetry<R>(call: () => R): R {
    return this.session === null ? this.retryingConflicts(call) : call();
  }

  /**
   * `run` again (up to `retries` times) when the server rolled it back as a serialization failure or
   * deadlock: a whole transaction, or one statement outside any.
   */
  private retryingConflicts<R>(run: () => R): R {
    for (let tries = 0; ; tries++) {
      try {
        return run();
      } catch (err) {
        if (tries < this.retries && err instanceof PostgresStoreError && isConflictCode(err.code)) continue;
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
