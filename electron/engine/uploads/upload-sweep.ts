/**
 * Removing uploads no job uses (issue 29): before, no upload was ever removed. A file is kept
 * while any job's inputs name it, and for upload_unused_keep_h after it was last sent, announced
 * or previewed (a preview is kept an hour at most, and the setting is at least two): so a file
 * an import is about to use is never taken from under it. Synchronous on purpose: the engine runs
 * nothing else between the query and the removals, so no preview can start using a file meanwhile.
 */
import { rmSync } from 'node:fs';
import { deleteUpload, unusedUploads } from '../store/upload-store.js';
import type { Db } from '../store/database.js';
import { uploadFile } from './receive-upload.js';

/** At most this many files per sweep: a sweep never holds the engine long; the next one takes the rest. */
const BATCH = 1_000;

/** Removes the files and rows of uploads unused since `now - keepMs`; how many went. */
export function sweepUnusedUploads(db: Db, dataDir: string, now: number, keepMs: number): number {
  const gone = unusedUploads(db, now - keepMs, BATCH);
  for (const sha256 of gone) {
    // The file first: a row without its file reads as "missing" (sent again), never the reverse.
    rmSync(uploadFile(dataDir, sha256), { force: true });
    deleteUpload(db, sha256);
  }
  return gone.length;
}
