/**
 * Opens the store: one SQLite file in WAL mode with synchronous=FULL (a committed state change
 * survives power loss), foreign keys on, and a busy timeout so the CLI and the app can share it.
 */
import Database from 'better-sqlite3';
import type BetterSqlite3 from 'better-sqlite3';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ShotfarmError } from '../../../shared/errors.js';
import type { Clock } from '../clock.js';
import { makePrivateFile, makePrivateFolder } from '../files/private-files.js';
import { migrate } from './migrate.js';
import { PostgresStoreError, postgresFault } from './postgres/postgres-error.js';
import { type SqlDb, sqliteSqlDb } from './sql-db.js';

/** The engine's store connection: the seam (sql-db.ts), SQLite's adapter by default. */
export type Db = SqlDb;

export const DB_FILE_NAME = 'shotfarm.sqlite';

export interface DatabaseOptions {
  /**
   * better-sqlite3's compiled addon to load instead of node_modules' own. The desktop app passes its
   * Electron build (kept apart from the Node build the CLI and the tests load, so neither breaks the other).
   */
  nativeBinding?: string;
}

export function openDatabase(file: string, clock: Clock, opts: DatabaseOptions = {}): Db {
  if (file !== ':memory:') {
    try {
      makePrivateFolder(dirname(file));
    } catch (err) {
      throw (
        readOnly(file) ??
        new ShotfarmError('storage', `Cannot create the data folder ${dirname(file)}: ${(err as Error).message}`)
      );
    }
    refuseEmptyFile(file);
  }
  let conn: BetterSqlite3.Database;
  try {
    conn = opts.nativeBinding ? withAddon(file, opts.nativeBinding) : new Database(file);
  } catch (err) {
    if (err instanceof ShotfarmError) throw err;
    throw readOnly(file) ?? new ShotfarmError('storage', `Cannot open the database ${file}: ${(err as Error).message}`);
  }
  const db = sqliteSqlDb(conn);
  try {
    // For the farm's user only, before SQLite makes its -wal/-shm (they take the database's mode).
    if (file !== ':memory:') makePrivateFile(file);
    conn.pragma('journal_mode = WAL');
    if (file !== ':memory:') for (const f of [`${file}-wal`, `${file}-shm`]) makePrivateFile(f);
    conn.pragma('synchronous = FULL');
    conn.pragma('foreign_keys = ON');
    conn.pragma('busy_timeout = 5000');
    // 32 MiB of page cache (default 2 MiB): job ids are random UUIDs, so a 100k-row import and the
    // queue queries touch index pages all over the file. An upper bound, not an allocation.
    conn.pragma('cache_size = -32768');
    migrate(db, clock);
  } catch (err) {
    db.close();
    if (err instanceof ShotfarmError) throw err;
    throw (
      readOnly(file) ??
      new ShotfarmError('storage', `The database ${file} could not be prepared: ${(err as Error).message}`)
    );
  }
  return db;
}

/**
 * SQLite makes a new store of a zero-length file without a word, so a database emptied by an
 * interrupted copy or a full disk would silently become an empty farm. Refused, unless its
 * write-ahead log holds the data (SQLite recovers that).
 */
function refuseEmptyFile(file: string): void {
  const size = (p: string): number | null => {
    try {
      return statSync(p).size;
    } catch {
      return null;
    }
  };
  if (size(file) !== 0 || (size(`${file}-wal`) ?? 0) > 0) return;
  throw new ShotfarmError(
    'storage',
    `The database ${file} is empty (0 bytes), so it is not a Shotfarm store: an interrupted copy or a full disk may have emptied it. ` +
      'Restore it from a backup; or, to start a new farm in this folder, remove the empty file.',
    { details: { file } },
  );
}

/** When the open failed because the folder or the file cannot be written, the words that say so (else null). */
function readOnly(file: string): ShotfarmError | null {
  const dir = dirname(file);
  const why = (p: string): string | null => {
    try {
      accessSync(p, constants.W_OK);
      return null;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return null;
      return code === 'EROFS' ? 'on a read-only file system' : 'not writable by this user';
    }
  };
  const folder = why(dir);
  const details = { file };
  if (folder) {
    return new ShotfarmError(
      'storage',
      `The data folder ${dir} is read-only (${folder}): Shotfarm writes its database ${file} and its journal there. ` +
        'Make the folder writable, or choose another data folder (--data DIR or SHOTFARM_DATA).',
      { details },
    );
  }
  const own = existsSync(file) ? why(file) : null;
  if (own)
    return new ShotfarmError('storage', `The database ${file} is read-only (${own}): make it writable for this user.`, {
      details,
    });
  return null;
}

/** Opens with the given addon; an addon that is missing or will not load says so, naming the file. */
function withAddon(file: string, nativeBinding: string): BetterSqlite3.Database {
  const details = { nativeBinding };
  if (!existsSync(nativeBinding)) {
    throw new ShotfarmError('storage', `SQLite's native module ${nativeBinding} does not exist.`, { details });
  }
  try {
    return new Database(file, { nativeBinding });
  } catch (err) {
    // dlopen's failures (another runtime's ABI, not a shared library at all) vs. the database's own.
    if ((err as NodeJS.ErrnoException).code !== 'ERR_DLOPEN_FAILED') throw err;
    const reason = (err as Error).message.split('\n')[0];
    throw new ShotfarmError('storage', `SQLite's native module ${nativeBinding} cannot be loaded: ${reason}`, {
      details,
    });
  }
}

/** Runs fn in a BEGIN IMMEDIATE transaction: takes the write lock up front, so read-then-write is safe. */
export function inTransaction<T>(db: Db, fn: () => T): T {
  return db.transaction(fn);
}

/** Why a store operation failed when the cause is the storage itself, not the statement. */
export type DatabaseFaultKind =
  | 'database_busy'
  | 'database_full'
  | 'database_io'
  | 'database_readonly'
  | 'database_unreachable';

/**
 * SQLite's storage faults, as the farm waits on them (scheduler/storage-hold.ts): another process
 * holding the write lock past the busy timeout (BUSY, LOCKED), a full disk or a size limit (FULL),
 * the disk failing a read or a write (IOERR), the file or its folder turned read-only (READONLY).
 * Null for anything else — a constraint, a bug, a corrupt file — which waiting does not fix.
 * PostgreSQL's SQLSTATEs map to the same holds (postgres/postgres-error.ts).
 */
export function databaseFault(err: unknown): { kind: DatabaseFaultKind; words: string } | null {
  // The PostgreSQL store's faults (its server unreachable besides these): the same holds.
  if (err instanceof PostgresStoreError) return postgresFault(err);
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return null;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return {
      kind: 'database_busy',
      words: 'the database is locked by another process (it held the write lock for over 5 s)',
    };
  }
  if (code === 'SQLITE_FULL') return { kind: 'database_full', words: 'the database disk is full' };
  if (code.startsWith('SQLITE_IOERR'))
    return { kind: 'database_io', words: `the database disk failed a read or a write (${code})` };
  if (code.startsWith('SQLITE_READONLY'))
    return { kind: 'database_readonly', words: `the database cannot be written: read-only (${code})` };
  return null;
}
