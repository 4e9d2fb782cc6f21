/**
 * The farm's files are for the farm's user only: the data folder 0700; the database, its journals,
 * the lock record and lock file and the key file 0600 — whatever the umask (a shell's 022, or a
 * service manager's). The database holds webhook secrets and token hashes, the lock record the
 * control listener's token, the key file what decrypts the RunPod key: another local user who can
 * read them can act as the farm. Files are created with the umask and then chmod-ed (SQLite makes
 * its -wal/-shm with the database's own mode, so the database is made private before them).
 *
 * Only path calls here (stat, chmod): never open a file the engine's lock may be on — closing any
 * descriptor of a file drops this process's POSIX locks on it (lock/engine-lock.ts).
 */
import { chmodSync, mkdirSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** The names, in the data folder, of the files only the farm's user may read. */
export const PRIVATE_FILE_NAMES = [
  'shotfarm.sqlite',
  'shotfarm.sqlite-wal',
  'shotfarm.sqlite-shm',
  'shotfarm.sqlite-journal',
  'engine.lock',
  'engine.lock-journal',
  'engine.lock-wal',
  'engine.lock-shm',
  'engine.lock.json',
  'runpod-key.bin',
] as const;

const posix = process.platform !== 'win32';

function statOrNull(p: string): Stats | null {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

/** Creates the data folder (and any missing parent) for this user only. */
export function makePrivateFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** Makes one file we just created private (chmod after create: the umask decided its first mode). */
export function makePrivateFile(file: string): void {
  if (!posix) return;
  const st = statOrNull(file);
  if (st && (st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) chmodSync(file, PRIVATE_FILE_MODE);
}

/**
 * At start: the data folder and its private files, checked. Those readable by others are made
 * private when this user owns them (and the log says so, once each); those owned by someone else
 * are reported with what to do, since only their owner can change them.
 */
export function securePrivateFiles(dataDir: string, log: (m: string) => void): void {
  if (!posix) return;
  const me = process.getuid?.();
  const check = (p: string, mode: number, what: string): void => {
    const st = statOrNull(p);
    if (!st || (st.mode & 0o077) === 0) return;
    const was = (st.mode & 0o777).toString(8).padStart(4, '0');
    if (st.uid !== me) {
      log(
        `warning: ${what} ${p} can be read by other users (mode ${was}) and belongs to another user; ask its owner to run chmod ${mode.toString(8)} on it`,
      );
      return;
    }
    try {
      chmodSync(p, mode);
      log(
        `warning: ${what} ${p} could be read by other users (mode ${was}); made it private (${mode.toString(8).padStart(4, '0')})`,
      );
    } catch (err) {
      log(
        `warning: ${what} ${p} can be read by other users (mode ${was}) and could not be made private: ${(err as Error).message}`,
      );
    }
  };
  check(dataDir, PRIVATE_DIR_MODE, 'the data folder');
  for (const name of PRIVATE_FILE_NAMES) check(join(dataDir, name), PRIVATE_FILE_MODE, 'the farm file');
}
