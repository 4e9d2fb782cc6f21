/**
 * One engine per data folder: the farm's lock. The holder keeps a second SQLite connection, to a
 * small `engine.lock` database beside the store, inside an EXCLUSIVE transaction for its whole
 * life. SQLite takes that as an OS file lock (fcntl on POSIX, LockFileEx on Windows), which the
 * kernel releases when the process dies however it dies — so a crash or a kill -9 never leaves a
 * stale lock behind, unlike a pid file. Another process (or another connection in this one)
 * asking for the same transaction gets SQLITE_BUSY at once (busy timeout 0): the farm is held.
 *
 * Beside it, `engine.lock.json` (lock-record.ts) says who holds it and how to reach it; it is only
 * believed while the lock is held.
 *
 * Never open `engine.lock` with plain fs calls in a process that may hold it: closing any file
 * descriptor of a file drops every POSIX lock this process has on it. SQLite's own connections
 * know this and keep such descriptors open.
 *
 * SQLite-only by nature, and outside the store's seam (store/sql-db.ts) on purpose: this is an OS
 * lock on a local file, not the farm's data, and it stays the same whichever store the farm uses.
 * On PostgreSQL, several hosts share one database, so the farm's claim (farm-claim.ts, a row in
 * the store) is what keeps a second engine out; this lock still keeps one per data folder.
 */
import Database from 'better-sqlite3';
import type BetterSqlite3 from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ShotfarmError } from '../../../shared/errors.js';
import type { Clock } from '../clock.js';
import { makePrivateFile, makePrivateFolder } from '../files/private-files.js';
import { farmHeldSentence, readLockRecord, writeLockRecord, type EngineKind, type LockRecord } from './lock-record.js';

export const LOCK_FILE_NAME = 'engine.lock';
export const LOCK_RECORD_NAME = 'engine.lock.json';

export interface LockOptions {
  /** better-sqlite3's addon (the desktop app's Electron build), as for the store. */
  nativeBinding?: string;
}

export type LockHolder = { held: false } | { held: true; record: LockRecord | null };

/**
 * A taker waits a moment for the lock (a CLI's look holds it for microseconds); a look never waits
 * (a holder keeps it for hours).
 */
const TAKE_WAIT_MS = 500;

function open(file: string, o: LockOptions, mustExist: boolean, timeoutMs: number): BetterSqlite3.Database {
  return new Database(file, {
    timeout: timeoutMs,
    fileMustExist: mustExist,
    ...(o.nativeBinding ? { nativeBinding: o.nativeBinding } : {}),
  });
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** Takes the lock on `db`; false when another connection holds it. */
function tryExclusive(db: BetterSqlite3.Database, create: boolean): boolean {
  try {
    // A table makes it a real database file (an empty one takes no lock); then the lock itself.
    if (create) db.exec('CREATE TABLE IF NOT EXISTS engine_lock (note TEXT)');
    db.exec('BEGIN EXCLUSIVE');
    return true;
  } catch (err) {
    if (isBusy(err)) return false;
    throw err;
  }
}

/** Words for a lock that could not even be tried (a read-only or missing folder…). */
function cannotLock(dataDir: string, err: unknown): ShotfarmError {
  const code = (err as { code?: unknown }).code;
  const readOnly = code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN' || code === 'EROFS' || code === 'EACCES';
  const why = readOnly
    ? `the folder is read-only or not writable by this user (${String(code)})`
    : (err as Error).message;
  return new ShotfarmError('storage', `Cannot take the farm's lock in ${dataDir}: ${why}.`);
}

export class EngineLock {
  private constructor(
    private db: BetterSqlite3.Database | null,
    private readonly recordFile: string,
    private record: LockRecord,
  ) {}

  /**
   * Takes the data folder's farm for this process, or refuses with who holds it (a `conflict`
   * whose details carry `engineLock`: the CLI's exit code 10).
   */
  static acquire(dataDir: string, kind: EngineKind, clock: Clock, o: LockOptions = {}): EngineLock {
    let db: BetterSqlite3.Database;
    try {
      makePrivateFolder(dataDir);
      db = open(join(dataDir, LOCK_FILE_NAME), o, false, TAKE_WAIT_MS);
      makePrivateFile(join(dataDir, LOCK_FILE_NAME));
    } catch (err) {
      throw cannotLock(dataDir, err);
    }
    let got: boolean;
    try {
      got = tryExclusive(db, true);
    } catch (err) {
      db.close();
      throw cannotLock(dataDir, err);
    }
    const recordFile = join(dataDir, LOCK_RECORD_NAME);
    if (!got) {
      db.close();
      const holder = readLockRecord(recordFile);
      throw new ShotfarmError('conflict', farmHeldSentence(dataDir, holder), {
        details: { engineLock: holder ?? { starting: true } },
      });
    }
    const record: LockRecord = {
      pid: process.pid,
      host: hostname(),
      kind,
      since: clock.now(),
      dataDir,
      control: null,
      serveUrl: null,
    };
    try {
      writeLockRecord(recordFile, record);
    } catch (err) {
      db.close();
      throw cannotLock(dataDir, err);
    }
    return new EngineLock(db, recordFile, record);
  }

  get current(): LockRecord {
    return this.record;
  }

  /** Adds how to reach this engine (the control listener, serve's address) to the record. */
  update(patch: Partial<Pick<LockRecord, 'control' | 'serveUrl'>>): void {
    if (!this.db) return;
    this.record = { ...this.record, ...patch };
    writeLockRecord(this.recordFile, this.record);
  }

  /** Gives the farm up: the record first (only ours), then the lock, so a successor's record is never removed. */
  release(): void {
    if (!this.db) return;
    const onDisk = readLockRecord(this.recordFile);
    if (onDisk && onDisk.pid === this.record.pid && onDisk.since === this.record.since)
      rmSync(this.recordFile, { force: true });
    try {
      this.db.close(); // rolls the transaction back: the lock is free
    } finally {
      this.db = null;
    }
  }
}

/**
 * Is the data folder's farm held right now, and by whom? Asked by one-shot CLI commands (to route
 * through the holder) without creating anything: no lock file means no engine ever ran here.
 */
export function engineLockHolder(dataDir: string, o: LockOptions = {}): LockHolder {
  let db: BetterSqlite3.Database;
  try {
    db = open(join(dataDir, LOCK_FILE_NAME), o, true, 0);
  } catch {
    return { held: false };
  }
  try {
    if (tryExclusive(db, false)) {
      db.exec('ROLLBACK');
      return { held: false };
    }
    return { held: true, record: readLockRecord(join(dataDir, LOCK_RECORD_NAME)) };
  } catch {
    // A lock file that cannot be read as one (foreign, read-only): nobody can be holding it through us.
    return { held: false };
  } finally {
    db.close();
  }
}
