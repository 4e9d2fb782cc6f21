/** The uploads table: which content-addressed input files are stored (<data>/uploads/<sha256>). */
import type { Db } from './database.js';
import { all, one, run } from './statements.js';

export function hasUpload(db: Db, sha256: string): boolean {
  return one<{ n: number }>(db, 'SELECT 1 AS n FROM uploads WHERE sha256 = ?', sha256) !== undefined;
}

export function uploadSize(db: Db, sha256: string): number | null {
  return one<{ size: number }>(db, 'SELECT size FROM uploads WHERE sha256 = ?', sha256)?.size ?? null;
}

/** Of these hashes, the ones stored already. */
export function knownUploads(db: Db, hashes: readonly string[]): Set<string> {
  const known = new Set<string>();
  for (let i = 0; i < hashes.length; i += 500) {
    const chunk = hashes.slice(i, i + 500);
    const rows = all<{ sha256: string }>(db, `SELECT sha256 FROM uploads WHERE sha256 IN (${chunk.map(() => '?').join(', ')})`, ...chunk);
    for (const r of rows) known.add(r.sha256);
  }
  return known;
}

/** Recorded after the file is in place (a row always names a complete file); a second upload of it changes nothing. */
export function recordUpload(db: Db, sha256: string, size: number, now: number): void {
  run(db, 'INSERT INTO uploads (sha256, size, first_seen) VALUES (?, ?, ?) ON CONFLICT (sha256) DO NOTHING', sha256, size, now);
}
