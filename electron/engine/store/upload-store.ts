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
    const rows = all<{ sha256: string; size: number }>(
      db,
      `SELECT sha256, size FROM uploads WHERE sha256 IN (${chunk.map(() => '?').join(', ')})`,
      ...chunk,
    );
    for (const r of rows) known.set(r.sha256, r.size);
  }
  return known;
}

/**
 * Recorded after the file is in place (a row always names a complete file), counted to `owner` (a
 * person's name or `local`); a second upload of it only marks it used now (its first sender keeps it).
 */
export function recordUpload(db: Db, sha256: string, size: number, now: number, owner: string): void {
  run(
    db,
    `INSERT INTO uploads (sha256, size, first_seen, uploaded_by, last_used_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (sha256) DO UPDATE SET last_used_at = excluded.last_used_at`,
    sha256,
    size,
    now,
    owner,
    now,
  );
}

/** What one person's stored uploads weigh in all (bytes): their quota (upload_person_max_mb) counts it. */
export function personUploadBytes(db: Db, owner: string): number {
  return one<{ n: number }>(db, 'SELECT COALESCE(SUM(size), 0) AS n FROM uploads WHERE uploaded_by = ?', owner)?.n ?? 0;
}

/** These files were announced or previewed now: the sweep keeps them upload_unused_keep_h from now (500 per query). */
export function touchUploads(db: Db, hashes: readonly string[], now: number): void {
  for (let i = 0; i < hashes.length; i += 500) {
    const chunk = hashes.slice(i, i + 500);
    run(db, `UPDATE uploads SET last_used_at = ? WHERE sha256 IN (${chunk.map(() => '?').join(', ')})`, now, ...chunk);
  }
}

/**
 * Uploads not used since `before` that no job references (a job's inputs name the stored file,
 * `<data>/uploads/<sha256>`, so its hash appears in inputs_json): the sweep's candidates, at most `limit`.
 */
export function unusedUploads(db: Db, before: number, limit: number): string[] {
  return all<{ sha256: string }>(
    db,
    `SELECT u.sha256 FROM uploads u WHERE COALESCE(u.last_used_at, u.first_seen) < ?
    AND NOT EXISTS (SELECT 1 FROM jobs j WHERE instr(j.inputs_json, u.sha256) > 0) LIMIT ?`,
    before,
    limit,
  ).map((r) => r.sha256);
}

/** Forgets an upload whose file was removed. */
export function deleteUpload(db: Db, sha256: string): void {
  run(db, 'DELETE FROM uploads WHERE sha256 = ?', sha256);
}
