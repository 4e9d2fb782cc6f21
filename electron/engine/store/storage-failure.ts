/**
 * SQLite's own error codes, in words an operator acts on, naming the file: a full disk, a read-only
 * file or folder, a disk error, a damaged file. Anything else is not a storage condition and is
 * left to the caller (null), so a programming error is never dressed up as a full disk.
 */
import { ShotfarmError } from '../../../shared/errors.js';

function sqliteCode(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : null;
}

/**
 * A `storage` error for a SQLite failure while `doing` (e.g. "importing shots.csv"), or null when
 * `err` is not one of the storage conditions. The transaction it happened in was rolled back.
 */
export function storageFailure(err: unknown, file: string, doing: string): ShotfarmError | null {
  const code = sqliteCode(err);
  if (!code) return null;
  const details = { file, sqlite: code };
  if (code === 'SQLITE_FULL') {
    return new ShotfarmError('storage', `The disk holding the database ${file} is full: ${doing} stored nothing. Free some space there and try again.`, { details });
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return new ShotfarmError('storage', `The database ${file} is read-only (${code}): ${doing} stored nothing. Make the file and its folder writable for this user.`, { details });
  }
  if (code.startsWith('SQLITE_IOERR')) {
    return new ShotfarmError('storage', `The database ${file} could not be written (disk I/O error, ${code}): ${doing} stored nothing. Check the disk (full, removed, failing).`, { details });
  }
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') {
    return new ShotfarmError('storage', `The database ${file} is damaged (${code}): ${doing} stored nothing. Restore it from a backup.`, { details });
  }
  if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_')) {
    return new ShotfarmError('storage', `The database ${file} stayed locked by another process for over 5 s: ${doing} stored nothing. Try again.`, { details, retryable: true });
  }
  return null;
}
