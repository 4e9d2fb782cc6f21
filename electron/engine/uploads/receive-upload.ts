/**
 * Receiving one uploaded input file (the server's PUT /api/uploads/<sha256>): streamed to a
 * temporary file in <data>/uploads/, hashed on the way, fsynced, checked against the hash it is
 * named by, then renamed into place and recorded — in that order, so a row always names a complete
 * file. Too large, truncated, interrupted or not matching its hash: the temporary file is removed
 * and nothing is stored. A hash stored already is not stored again.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { syncFolder } from '../files/atomic-write.js';
import { join } from 'node:path';
import { ShotfarmError } from '../../../shared/errors.js';
import { SHA256_PATTERN, uploadNameProblem } from '../../../shared/uploads.js';
import type { Clock } from '../clock.js';
import { randomId } from '../ids.js';
import type { Db } from '../store/database.js';
import { hasUpload, recordUpload } from '../store/upload-store.js';

/** A size as the upload limits say it (the settings are in MB). */
export const mb = (n: number): string => `${Math.round((n / 1024 / 1024) * 1000) / 1000} MB`;

/** Where uploads are kept: <data>/uploads. */
export function uploadsDir(dataDir: string): string {
  return join(dataDir, 'uploads');
}

export function uploadFile(dataDir: string, sha256: string): string {
  return join(uploadsDir(dataDir), sha256);
}

export interface ReceiveOptions {
  db: Db;
  clock: Clock;
  dataDir: string;
  sha256: string;
  /** The input's name as the shot list writes it (checked; used in messages only, never as a path). */
  name: string;
  /** The size the sender announced (Content-Length), if any. */
  declaredSize: number | null;
  /** Who sends it (a person's name or `local`): the stored file counts to their quota. */
  sender: string;
  /**
   * Whether this sender may send this file now (upload-gate.ts: announced, within their quota):
   * throws when not, else says the most bytes it may have. Asked once the name, hash and per-file
   * limit are checked and the farm lacks the file.
   */
  admit: () => number;
  maxBytes: number;
}

function fullDisk(name: string): ShotfarmError {
  return new ShotfarmError(
    'storage',
    `Upload of ${name} refused: the farm's data disk is full; nothing was stored. Free space on the farm host (its data folder), then send it again.`,
  );
}

/** The disk holding the data folder is full (or the user's disk quota is): a storage word, never "send it again". */
function diskFull(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** Thrown for a file over the size limit (the server answers 413). */
export class UploadTooLarge extends ShotfarmError {}

export async function receiveUpload(
  body: AsyncIterable<Buffer | string>,
  o: ReceiveOptions,
): Promise<{ stored: boolean; size: number }> {
  const nameProblem = uploadNameProblem(o.name);
  if (nameProblem) throw new ShotfarmError('bad_input', `Upload refused: ${nameProblem}.`);
  if (!SHA256_PATTERN.test(o.sha256))
    throw new ShotfarmError(
      'bad_input',
      `Upload refused: "${o.sha256.slice(0, 80)}" is not a SHA-256 (64 lowercase hex digits).`,
    );
  const tooLarge = (size: number) =>
    new UploadTooLarge(
      'bad_input',
      `Upload refused: ${o.name} is ${mb(size)}, larger than the farm's limit of ${mb(o.maxBytes)} per file (setting upload_file_max_mb); nothing was stored.`,
    );
  if (o.declaredSize !== null && o.declaredSize > o.maxBytes) throw tooLarge(o.declaredSize);
  const final = uploadFile(o.dataDir, o.sha256);
  if (hasUpload(o.db, o.sha256) && existsSync(final)) return { stored: false, size: o.declaredSize ?? 0 };
  const maxBytes = Math.min(o.maxBytes, o.admit());
  const overAnnounced = (size: number) =>
    new UploadTooLarge(
      'bad_input',
      `Upload refused: ${o.name} is ${size} bytes or more, more than the ${maxBytes} bytes announced for it (uploads.check); nothing was stored.`,
    );
  if (o.declaredSize !== null && o.declaredSize > maxBytes) throw overAnnounced(o.declaredSize);

  const temp = join(uploadsDir(o.dataDir), `.tmp-${randomId()}`);
  let fh;
  try {
    mkdirSync(uploadsDir(o.dataDir), { recursive: true });
    fh = await open(temp, 'wx');
  } catch (err) {
    if (diskFull(err)) throw fullDisk(o.name);
    throw err;
  }
  const hash = createHash('sha256');
  let size = 0;
  let closed = false;
  try {
    for await (const chunk of body) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > o.maxBytes) throw tooLarge(size);
      if (size > maxBytes) throw overAnnounced(size);
      hash.update(buf);
      await fh.write(buf);
    }
    if (o.declaredSize !== null && size !== o.declaredSize) {
      throw new ShotfarmError(
        'bad_input',
        `Upload refused: ${o.name} arrived with ${size} of its ${o.declaredSize} bytes (truncated); nothing was stored, send it again.`,
      );
    }
    const digest = hash.digest('hex');
    if (digest !== o.sha256) {
      throw new ShotfarmError(
        'bad_input',
        `Upload refused: the content of ${o.name} does not match its SHA-256 (got ${digest.slice(0, 12)}…, named ${o.sha256.slice(0, 12)}…): a truncated or altered upload; nothing was stored, send it again.`,
      );
    }
    await fh.sync();
    await fh.close();
    closed = true;
    await rename(temp, final);
    await syncFolder(uploadsDir(o.dataDir));
    recordUpload(o.db, o.sha256, size, o.clock.now(), o.sender);
    return { stored: true, size };
  } catch (err) {
    if (!closed) await fh.close().catch(() => undefined);
    await rm(temp, { force: true });
    if (err instanceof ShotfarmError) throw err;
    if (diskFull(err)) throw fullDisk(o.name);
    throw new ShotfarmError(
      'bad_input',
      `Upload of ${o.name} was interrupted after ${size} bytes; nothing was stored, send it again.`,
    );
  }
}
