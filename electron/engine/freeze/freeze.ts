/**
 * Release freeze (SPEC §8): the approved files of one episode, re-hashed against the ledger, then
 * written as a manifest (JSON + CSV, SHA-256 per file). Approval is an operator action, so this
 * never guesses: nothing approved is an error, and a file that is missing or no longer matches
 * its ledger hash stops the freeze — a release must never promise bytes that are not on disk.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { ShotfarmError } from '../../../shared/errors.js';
import type { Clock } from '../clock.js';
import { csvRecord } from '../exports/csv-export.js';
import { describeFsError, writeStreamAtomically } from '../files/atomic-write.js';
import { approvedAssets, episodeAssetCount } from '../store/asset-store.js';
import type { Db } from '../store/database.js';
import { episodeJobCount } from '../store/job-store.js';
import { checkFiles, type FileCheck } from './file-check.js';
import type { FreezeResult } from '../../../shared/domain.js';
import {
  commonRoot,
  MANIFEST_CSV,
  MANIFEST_CSV_HEADER,
  MANIFEST_FORMAT,
  MANIFEST_JSON,
  MANIFEST_VERSION,
  manifestPath,
  type Manifest,
  type ManifestFile,
} from './manifest.js';

export interface FreezeInput {
  project: string;
  episode: string;
  /** Folder that receives manifest.json and manifest.csv; created if missing, never overwritten. */
  outDir: string;
}

export type { FreezeResult };

/** At most this many file names in a message; the error's details carry the full lists. */
const NAMES_IN_MESSAGE = 10;

function nameList(paths: readonly string[]): string {
  const shown = paths.slice(0, NAMES_IN_MESSAGE).join(', ');
  return paths.length > NAMES_IN_MESSAGE ? `${shown} and ${paths.length - NAMES_IN_MESSAGE} more` : shown;
}

function refuseMismatches(input: FreezeInput, check: FileCheck): void {
  const problems = check.missing.length + check.changed.length + check.unreadable.length;
  if (problems === 0) return;
  const parts: string[] = [];
  if (check.missing.length) parts.push(`missing: ${nameList(check.missing)}`);
  if (check.changed.length)
    parts.push(`changed since they were rendered: ${nameList(check.changed.map((c) => c.path))}`);
  if (check.unreadable.length)
    parts.push(`unreadable: ${nameList(check.unreadable.map((u) => `${u.path} (${u.error})`))}`);
  throw new ShotfarmError(
    'conflict',
    `Cannot freeze ${input.project} / ${input.episode}: ${problems} approved file(s) no longer match the ledger — ${parts.join('; ')}. ` +
      'Restore those files, or withdraw their approval, then freeze again. Nothing was written.',
    { details: { missing: check.missing, changed: check.changed, unreadable: check.unreadable } },
  );
}

function csvRows(m: Manifest): Readable {
  function* records(): Generator<string> {
    // Same dialect as the other exports: BOM (spreadsheets read UTF-8 names) and CRLF.
    yield `\ufeff${csvRecord(MANIFEST_CSV_HEADER)}`;
    for (const f of m.files) {
      yield csvRecord([
        m.project,
        m.episode,
        f.shot,
        f.stage,
        f.take,
        f.path,
        f.absolute_path,
        f.sha256,
        f.bytes,
        f.asset_id,
        f.job_id,
      ]);
    }
  }
  return Readable.from(records());
}

export async function freezeRelease(db: Db, clock: Clock, input: FreezeInput): Promise<FreezeResult> {
  const { project, episode } = input;
  const outDir = resolve(input.outDir);
  const jsonPath = join(outDir, MANIFEST_JSON);
  const csvPath = join(outDir, MANIFEST_CSV);

  const rows = approvedAssets(db, project, episode);
  if (rows.length === 0) {
    // "No such episode" and "nothing approved yet" need different words.
    if (episodeJobCount(db, project, episode) === 0)
      throw new ShotfarmError(
        'not_found',
        `There are no jobs in project "${project}", episode "${episode}". Check the names (they are case-sensitive).`,
      );
    throw new ShotfarmError(
      'conflict',
      `Nothing is approved in ${project} / ${episode} (${episodeAssetCount(db, project, episode)} rendered file(s)). Approve the takes to release in the Ledger, then freeze again. Nothing was written.`,
    );
  }
  for (const p of [jsonPath, csvPath]) {
    if (existsSync(p))
      throw new ShotfarmError(
        'conflict',
        `${p} already exists: a freeze is never overwritten. Choose a new folder for this release.`,
      );
  }

  refuseMismatches(input, await checkFiles(rows.map((r) => ({ path: r.path, sha256: r.sha256 }))));

  const root = commonRoot(rows.map((r) => r.path));
  const files: ManifestFile[] = rows.map((r) => ({
    path: manifestPath(root, resolve(r.path)),
    absolute_path: resolve(r.path),
    sha256: r.sha256,
    bytes: r.bytes,
    shot: r.shot,
    stage: r.stage,
    take: r.take,
    asset_id: r.id,
    job_id: r.job_id,
  }));
  const createdAt = clock.now();
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    version: MANIFEST_VERSION,
    project,
    episode,
    created_at: new Date(createdAt).toISOString(),
    root,
    file_count: files.length,
    total_bytes: files.reduce((n, f) => n + f.bytes, 0),
    files,
  };

  try {
    await mkdir(outDir, { recursive: true });
  } catch (err) {
    throw describeFsError(err, `the release folder ${outDir}`);
  }
  // CSV first, JSON last: manifest.json is what tools look for, so it appears only once the
  // freeze is complete (each file itself is written atomically).
  await writeStreamAtomically(csvPath, csvRows(manifest), `the manifest ${csvPath}`);
  await writeStreamAtomically(
    jsonPath,
    Readable.from([`${JSON.stringify(manifest, null, 2)}\n`]),
    `the manifest ${jsonPath}`,
  );
  return {
    project,
    episode,
    manifestJson: jsonPath,
    manifestCsv: csvPath,
    root,
    files: files.length,
    bytes: manifest.total_bytes,
    createdAt,
  };
}
