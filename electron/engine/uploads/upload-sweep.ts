/**
 * Removing uploads no job uses (issue 29): before, no upload was ever removed. A file is kept
 * while any job's inputs name it, and for upload_unused_keep_h after it was last sent, announced
 * or previewed (a preview is kept an hour at most, and the setting is at least two): so a file
 * an import is about to use is never taken from under it. Synchronous on purpose: the engine runs
 * nothing else between the query and the removals, so no preview can start using a file meanwhile.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { deleteUpload, unusedUploads } from '../store/upload-store.js';
import type { Db } from '../store/database.js';
import { uploadFile, uploadsDir } from './receive-upload.js';

/** At most this many files per sweep: a sweep never holds the engine long; the next one takes the rest. */
const BATCH = 1_000;

/** Removes the files and rows of uploads unused since `now - keepMs`, and stale temporary files; how many uploads went. */
export function sweepUnusedUploads(db: Db, dataDir: string, now: number, keepMs: number): number {
  const gone = unusedUploads(db, now - keepMs, BATCH);
  for (const sha256 of gone) {
    // The file first: a row without its file reads as "missing" (sent again), never the reverse.
    rmSync(uploadFile(dataDir, sha256), { force: true });
    deleteUpload(db, sha256);
  }
  removeStaleTemporaries(dataDir, now - keepMs);
  return gone.length;
}

/**
 * A temporary file a crash left behind (a failed upload removes its own). One still being written
 * is touched by every chunk, so a file not written to for upload_unused_keep_h (two hours at least)
 * is nobody's.
 */
function removeStaleTemporaries(dataDir: string, before: number): void {
  let names: string[];
  try {
    names = readdirSync(uploadsDir(dataDir));
  } catch {
    return; // no uploads folder yet
  }
  for (const name of names) {
    if (!name.startsWith('.tmp-')) continue;
    const path = join(uploadsDir(dataDir), name);
    try {
      if (statSync(path).mtimeMs < before) rmSync(path, { force: true });
    } catch {
      // Gone meanwhile (its upload ended): nothing to do.
    }
  }
}
