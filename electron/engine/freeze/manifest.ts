/**
 * The release manifest (SPEC §8 "Release freeze"): the approved files of an episode with their
 * SHA-256, written as JSON (for programs) and CSV (for people and spreadsheets). Both carry the
 * same rows, and `verifyManifest` reads either, so a vendor who only kept the CSV can still check
 * a delivery. A manifest comes back from outside (it may have been edited or truncated), so
 * reading it validates it like any other input.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { z } from 'zod';

export const MANIFEST_FORMAT = 'shotfarm-release-manifest';
export const MANIFEST_VERSION = 1;
export const MANIFEST_JSON = 'manifest.json';
export const MANIFEST_CSV = 'manifest.csv';

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 in hex (64 characters 0-9a-f)');

export const manifestFileSchema = z.object({
  /** Relative to `root` with forward slashes when the files share a root; else the absolute path. */
  path: z.string().min(1),
  absolute_path: z.string().min(1),
  sha256: sha256Hex,
  bytes: z.number().int().min(0),
  shot: z.string(),
  stage: z.string(),
  take: z.number().int().min(1),
  asset_id: z.string(),
  job_id: z.string(),
});
export type ManifestFile = z.infer<typeof manifestFileSchema>;

export const manifestSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  version: z.literal(MANIFEST_VERSION),
  project: z.string(),
  episode: z.string(),
  /** ISO 8601 UTC. */
  created_at: z.string(),
  /** The deepest folder holding every file, or null when they share none (different drives). */
  root: z.string().nullable(),
  file_count: z.number().int().min(0),
  total_bytes: z.number().int().min(0),
  files: z.array(manifestFileSchema),
});
export type Manifest = z.infer<typeof manifestSchema>;

/** CSV columns; `verify` needs only path, absolute_path, sha256 and bytes, the rest is for people. */
export const MANIFEST_CSV_HEADER = [
  'project',
  'episode',
  'shot',
  'stage',
  'take',
  'path',
  'absolute_path',
  'sha256',
  'bytes',
  'asset_id',
  'job_id',
] as const;

/**
 * The deepest folder containing every path, or null when that would be a file-system root (no
 * useful common folder: the files sit on different drives or far apart).
 */
export function commonRoot(paths: readonly string[]): string | null {
  const first = paths[0];
  if (first === undefined) return null;
  let parts = resolve(first).split(sep).slice(0, -1);
  for (const p of paths.slice(1)) {
    const dirParts = resolve(p).split(sep).slice(0, -1);
    let i = 0;
    while (i < parts.length && i < dirParts.length && parts[i] === dirParts[i]) i++;
    parts = parts.slice(0, i);
  }
  // [''] on POSIX ("/") or ['C:'] on Windows: only the file-system root is shared.
  if (parts.length <= 1) return null;
  return parts.join(sep);
}

/** The manifest's portable relative path (forward slashes), or the absolute path when there is no root. */
export function manifestPath(root: string | null, absolutePath: string): string {
  if (root === null) return absolutePath;
  const rel = relative(root, absolutePath);
  return rel.split(sep).join('/');
}

/** Where a manifest row's file is: re-based on `root` when given (a delivery copied elsewhere). */
export function fileLocation(row: Pick<ManifestFile, 'path' | 'absolute_path'>, rebaseRoot?: string): string {
  if (rebaseRoot !== undefined && !isAbsolute(row.path)) return resolve(rebaseRoot, ...row.path.split('/'));
  return row.absolute_path;
}
