/**
 * Durable file writes: write to a temporary name in the destination folder, fsync, rename, fsync
 * the folder. A crash leaves either the old file or the complete new one, never half of it.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { link, open, rename, rm, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ShotfarmError } from '../../../shared/errors.js';
import { fsyncPath } from './fd-calls.js';

/** Temp names start with this, then the writer's pid: leftovers of a dead process can be told apart. */
export const TEMP_PREFIX = '.sf-';

/**
 * A short temporary name beside `finalPath` (never longer than the final name: a 247-character
 * output name once made a 268-character temp name, over the 255 limit).
 */
export function tempPathFor(finalPath: string): string {
  return join(dirname(finalPath), `${TEMP_PREFIX}${process.pid}-${randomBytes(5).toString('hex')}.tmp`);
}

/**
 * Makes a rename into `dir` durable by syncing the folder — best effort: some platforms (Windows)
 * cannot open a folder to fsync it, and the rename is atomic there anyway.
 */
export async function syncFolder(dir: string): Promise<void> {
  try {
    await fsyncPath(dir, 'r');
  } catch {
    // See above: nothing more can be done on such a platform.
  }
}

/** Words an operator can act on for the file-system errors that happen in practice. */
export function describeFsError(err: unknown, what: string): ShotfarmError {
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case 'ENOSPC':
      return new ShotfarmError(
        'storage',
        `The disk is full: ${what} could not be written. Free some space and try again.`,
        { retryable: true },
      );
    case 'EACCES':
    case 'EPERM':
      return new ShotfarmError('storage', `Permission denied: ${what}. Choose a folder you can write to.`);
    case 'ENOENT':
      return new ShotfarmError('storage', `The folder for ${what} does not exist.`);
    case 'EROFS':
      return new ShotfarmError('storage', `The disk is read-only: ${what} could not be written.`);
    default:
      return new ShotfarmError('storage', `${what} could not be written: ${e.message}`);
  }
}

/** What a write that must not replace a file says when one is there already. */
export function fileExistsError(finalPath: string): ShotfarmError {
  return new ShotfarmError('conflict', `${finalPath} already exists; it was left as it is. Choose another file name.`);
}

/**
 * Moves the finished temp file to its name. `replace: false` links it there instead — the link
 * fails if a file took the name meanwhile, so nothing is ever overwritten — and falls back to a
 * checked rename where the file system has no hard links (FAT, some network shares).
 */
async function moveIntoPlace(tmp: string, finalPath: string, replace: boolean): Promise<void> {
  if (replace) return rename(tmp, finalPath);
  try {
    await link(tmp, finalPath);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw fileExistsError(finalPath);
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EXDEV') throw err;
    const taken = await open(finalPath, 'r').then(
      (fh) => fh.close().then(() => true),
      () => false,
    );
    if (taken) throw fileExistsError(finalPath);
    return rename(tmp, finalPath);
  }
  await unlink(tmp);
}

/**
 * A complete temporary file made the file at `finalPath`, durably: fsync, into place (without
 * `replace`, never over an existing file: a conflict), the folder synced. The caller removes `tmp`
 * if this throws.
 */
export async function placeDurably(tmp: string, finalPath: string, replace: boolean): Promise<void> {
  await fsyncPath(tmp, 'r+');
  await moveIntoPlace(tmp, finalPath, replace);
  await syncFolder(dirname(finalPath));
}

/**
 * Streams `source` into `finalPath` atomically; returns the bytes written. With `replace: false`
 * (exports) an existing file at `finalPath` is never replaced: the write fails with a conflict.
 */
export async function writeStreamAtomically(
  finalPath: string,
  source: Readable,
  what = finalPath,
  o: { replace?: boolean } = {},
): Promise<number> {
  const tmp = tempPathFor(finalPath);
  try {
    const out = createWriteStream(tmp, { flags: 'wx' });
    await pipeline(source, out);
    const bytes = out.bytesWritten;
    await placeDurably(tmp, finalPath, o.replace ?? true);
    return bytes;
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    if (err instanceof ShotfarmError) throw err;
    throw describeFsError(err, what);
  }
}
