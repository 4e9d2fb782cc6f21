/**
 * Uploads on the import side: the farm's size limits (farm settings upload_file_max_mb and
 * upload_import_max_mb, read through the settings reader at each use so every process applies the same), which of a page's
 * files the farm lacks, and a preview's map of input names to the stored files it references.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { ShotfarmError } from '../../../shared/errors.js';
import { uploadNameProblem, type UploadsCheck } from '../../../shared/uploads.js';
import type { SettingsReader } from '../settings/setting-reader.js';
import type { Db } from '../store/database.js';
import { knownUploads, touchUploads } from '../store/upload-store.js';
import { mb, uploadFile } from './receive-upload.js';

const MB = 1024 * 1024;

export function uploadLimits(settings: SettingsReader): { fileMaxBytes: number; importMaxBytes: number } {
  return {
    fileMaxBytes: Math.round(settings.get('upload_file_max_mb') * MB),
    importMaxBytes: Math.round(settings.get('upload_import_max_mb') * MB),
  };
}

/** What one person may keep uploaded in all (bytes), and how long a file no job uses is kept (ms). */
export function uploadKeeping(settings: SettingsReader): { personMaxBytes: number; unusedKeepMs: number } {
  return {
    personMaxBytes: Math.round(settings.get('upload_person_max_mb') * MB),
    unusedKeepMs: settings.get('upload_unused_keep_h') * 3_600_000,
  };
}

/** How an input name is matched: forward slashes, no leading "./". */
export function inputKey(name: string): string {
  return name.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

function checkImportTotal(total: number, importMaxBytes: number): void {
  if (total > importMaxBytes) {
    throw new ShotfarmError(
      'bad_input',
      `The files sent with this shot list come to ${mb(total)}, more than the farm's limit of ${mb(importMaxBytes)} per import (setting upload_import_max_mb); send fewer or smaller files. Nothing was stored.`,
    );
  }
}

/** uploads.check: refuses bad names and sizes over the limits (naming the file), else says which hashes to send. */
export function checkUploads(
  db: Db,
  settings: SettingsReader,
  dbFile: string,
  files: readonly { name: string; sha256: string; size: number }[],
  now: number,
): UploadsCheck {
  const limits = uploadLimits(settings);
  const sizes = new Map<string, number>();
  for (const f of files) {
    const problem = uploadNameProblem(f.name);
    if (problem) throw new ShotfarmError('bad_input', `Upload refused: ${problem}.`);
    if (f.size > limits.fileMaxBytes) {
      throw new ShotfarmError(
        'bad_input',
        `Upload refused: ${f.name} is ${mb(f.size)}, larger than the farm's limit of ${mb(limits.fileMaxBytes)} per file (setting upload_file_max_mb). Nothing was stored.`,
      );
    }
    sizes.set(f.sha256, f.size);
  }
  checkImportTotal(
    [...sizes.values()].reduce((a, b) => a + b, 0),
    limits.importMaxBytes,
  );
  const dataDir = dirname(dbFile);
  const known = knownUploads(db, [...sizes.keys()]);
  const missing = [...sizes.keys()].filter((h) => !known.has(h) || !existsSync(uploadFile(dataDir, h)));
  // What the farm holds already is about to be used: the sweep leaves it for upload_unused_keep_h from now.
  touchUploads(db, [...known.keys()], now);
  return { missing, ...limits };
}

/**
 * A preview's uploads: input name → the stored file. Names the page sent without the file having
 * arrived are left out, so the preview says that input is missing; the referenced files together
 * must stay within the per-import limit.
 */
export function uploadedInputs(
  db: Db,
  settings: SettingsReader,
  dbFile: string,
  uploads: Readonly<Record<string, string>> | undefined,
  now: number,
): Map<string, string> | undefined {
  if (!uploads) return undefined;
  const dataDir = dirname(dbFile);
  const out = new Map<string, string>();
  const sizes = new Map<string, number>();
  const stored = knownUploads(db, [...new Set(Object.values(uploads))]);
  for (const [name, sha] of Object.entries(uploads)) {
    const problem = uploadNameProblem(name);
    if (problem) throw new ShotfarmError('bad_input', `Upload refused: ${problem}.`);
    const size = stored.get(sha) ?? null;
    const file = uploadFile(dataDir, sha);
    if (size === null || !existsSync(file)) continue;
    sizes.set(sha, size);
    out.set(inputKey(name), file);
  }
  checkImportTotal(
    [...sizes.values()].reduce((a, b) => a + b, 0),
    uploadLimits(settings).importMaxBytes,
  );
  // Previewed: kept at least upload_unused_keep_h from now, longer than the preview itself (an hour).
  touchUploads(db, [...sizes.keys()], now);
  return out;
}
