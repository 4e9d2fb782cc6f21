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
  maxBytes: number;
}

/** Thrown for a file over the size limit (the server answers 413). */
export class UploadTooLarge extends ShotfarmError {}


export async function receiveUpload(body: AsyncIterable<Buffer | string>, o: ReceiveOptions): Promise<{ stored: boolean; size: number }> {
  const nameProblem = uploadNameProblem(o.name);
  if (nameProblem) throw new ShotfarmError('bad_input', `Upload refused: ${nameProblem}.`);
  if (!SHA256_PATTERN.test(o.sha256)) throw new ShotfarmError('bad_input', `Upload refused: "${o.sha256.slice(0, 80)}" is not a SHA-256 (64 lowercase hex digits).`);
  const tooLarge = (size: number) =>
    new UploadTooLarge('bad_input', `Upload refused: ${o.name} is ${mb(size)}, larger than the farm's limit of ${mb(o.maxBytes)} per file (setting upload_file_max_mb); nothing was stored.`);
  if (o.declaredSize !== null && o.declaredSize > o.maxBytes) throw tooLarge(o.declaredSize);
  const final = uploadFile(o.dataDir, o.sha256);
  if (hasUpload(o.db, o.sha256) && existsSync(final)) return { stored: false, size: o.declaredSize ?? 0 };

  mkdirSync(uploadsDir(o.dataDir), { recursive: true });
  const temp = join(uploadsDir(o.dataDir), `.tmp-${randomId()}`);
  const fh = await open(temp, 'wx');
  const hash = createHash('sha256');
  let size = 0;
  let closed = false;
  try {
    for await (const chunk of body) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > o.maxBytes) throw tooLarge(size);
      hash.update(buf);
      await fh.write(buf);
    }
    if (o.declaredSize !== null && size !== o.declaredSize) {
      throw new ShotfarmError('bad_input', `Upload refused: ${o.name} arrived with ${size} of its ${o.declaredSize} bytes (truncated); nothing was stored, send it again.`);
    }
    const digest = hash.digest('hex');
    if (digest !== o.sha256) {
      throw new ShotfarmError('bad_input', `Upload refused: the content of ${o.name} does not match its SHA-256 (got ${digest.slice(0, 12)}…, named ${o.sha256.slice(0, 12)}…): a truncated or altered upload; nothing was stored, send it again.`);
    }
    await fh.sync();
    await fh.close();
    closed = true;
    await rename(temp, final);
    await syncFolder(uploadsDir(o.dataDir));
    recordUpload(o.db, o.sha256, size, o.clock.now());
    return { stored: true, size };
  } catch (err) {
    if (!closed) await fh.close().catch(() => undefined);
    await rm(temp, { force: true });
    if (err instanceof ShotfarmError) throw err;
    throw new ShotfarmError('bad_input', `Upload of ${o.name} was interrupted after ${size} bytes; nothing was stored, send it again.`);
  }
}

