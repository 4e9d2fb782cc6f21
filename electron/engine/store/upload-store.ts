/** The uploads table: which content-addressed input files are stored (<data>/uploads/<sha256>). */
import type { Db } from './database.js';
import { all, one, run } from './statements.js';

export function hasUpload(db: Db, sha256: string): boolean {
  return one<{ n: number }>(db, 'SELECT 1 AS n FROM uploads WHERE sha256 = ?', sha256) !== undefined;
}

/** Of these hashes, the ones stored already, with their sizes (500 per query). */
export function knownUploads(db: Db, hashes: readonly string[]): Map<string, number> {
  const known = new Map<string, number>();
  for (let i = 0; i < hashes.length; i += 500) {
    const chunk = hashes.slice(i, i + 500);
    const rows = all<{ sha256: string; size: number }>(db, `SELECT sha256, size FROM uploads WHERE sha256 IN (${chunk.map(() => '?').join(', ')})`, ...chunk);
    for (const r of rows) known.set(r.sha256, r.size);
  }
  return known;
}

/** Recorded after the file is in place (a row always names a complete file); a second upload of it changes nothing. */
export function recordUpload(db: Db, sha256: string, size: number, now: number): void {
  run(db, 'INSERT INTO uploads (sha256, size, first_seen) VALUES (?, ?, ?) ON CONFLICT (sha256) DO NOTHING', sha256, size, now);
}
