/**
 * SQLite's own error codes, in words an operator acts on, naming the file: a full disk, a read-only
 * file or folder, a disk error, a damaged file (and PostgreSQL's SQLSTATEs for the same conditions). Anything else is not a storage condition and is
 * left to the caller (null), so a programming error is never dressed up as a full disk.
 */
import { ShotfarmError } from '../../../shared/errors.js';
import { databaseFault } from './database.js';
import { PostgresStoreError } from './postgres/postgres-error.js';

/**
 * A `storage` error for a SQLite failure while `doing` (e.g. "importing shots.csv"), or null when
 * `err` is not one of the storage conditions. The transaction it happened in was rolled back. The
 * conditions are the farm's (database.ts databaseFault), plus a damaged file, which an import says
 * and the farm cannot wait out.
 */
export function storageFailure(err: unknown, file: string, doing: string): ShotfarmError | null {
  if (err instanceof PostgresStoreError) return postgresFailure(err, file, doing);
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  const details = { file, sqlite: code };
  // A table or column dropped or renamed outside Shotfarm: the schema is not what the migrations made.
  const missing =
    code === 'SQLITE_ERROR' ? /^no such (table|column): ([\w.]{1,80})/.exec((err as Error).message) : null;
  if (missing) {
    return new ShotfarmError(
      'storage',
      `The database ${file} is missing its ${missing[1]} ${missing[2]} (changed outside Shotfarm): ${doing} stored nothing. Restore it from a backup (shotfarm import-db FILE).`,
      { details },
    );
  }
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') {
    return new ShotfarmError(
      'storage',
      `The database ${file} is damaged (${code}): ${doing} stored nothing. Restore it from a backup.`,
      { details },
    );
  }
  switch (databaseFault(err)?.kind) {
    case 'database_full':
      return new ShotfarmError(
        'storage',
        `The disk holding the database ${file} is full: ${doing} stored nothing. Free some space there and try again.`,
        { details },
      );
    case 'database_readonly':
      return new ShotfarmError(
        'storage',
        `The database ${file} is read-only (${code}): ${doing} stored nothing. Make the file and its folder writable for this user.`,
        { details },
      );
    case 'database_io':
      return new ShotfarmError(
        'storage',
        `The database ${file} could not be written (disk I/O error, ${code}): ${doing} stored nothing. Check the disk (full, removed, failing).`,
        { details },
      );
    case 'database_busy':
      return new ShotfarmError(
        'storage',
        `The database ${file} stayed locked by another process for over 5 s: ${doing} stored nothing. Try again.`,
        { details, retryable: true },
      );
    default:
      return null;
  }
}

/**
 * The same conditions on the PostgreSQL store (`database` names it: its URL without the password).
 * The server's disk and read-only state are the server's, so the advice points there.
 */
function postgresFailure(err: PostgresStoreError, database: string, doing: string): ShotfarmError | null {
  const details = { database, sqlstate: err.code };
  switch (databaseFault(err)?.kind) {
    case 'database_unreachable':
      return new ShotfarmError(
        'storage',
        `The database ${database} is unreachable (${err.message}): ${doing} stored nothing. Check that the PostgreSQL server runs and this machine reaches it, then try again.`,
        { details, retryable: true },
      );
    case 'database_full':
      return new ShotfarmError(
        'storage',
        `The disk holding the database ${database} is full (${err.code}): ${doing} stored nothing. Free some space on the database server and try again.`,
        { details },
      );
    case 'database_readonly':
      return new ShotfarmError(
        'storage',
        `The database ${database} is read-only (${err.code}): ${doing} stored nothing. Point Shotfarm at the primary server, not a standby.`,
        { details },
      );
    case 'database_io':
      return new ShotfarmError(
        'storage',
        `The database ${database} could not be written (disk I/O error, ${err.code}): ${doing} stored nothing. Check the database server's disk.`,
        { details },
      );
    case 'database_busy':
      return new ShotfarmError(
        'storage',
        `The database ${database} was too busy (${err.code}: ${err.message}): ${doing} stored nothing. Try again.`,
        { details, retryable: true },
      );
    default:
      return null;
  }
}
