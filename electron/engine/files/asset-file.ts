/**
 * Which file a ledger asset may be served from — the one rule both hosts apply (the headless
 * server's /files/asset/:id, the desktop's shotfarm-asset: scheme). The path comes from the ledger
 * row, never from a request, and is served only when it resolves, links followed, to a regular file
 * strictly inside the real output folder: the row is the engine's, but the file on disk may have
 * been replaced by a link since, so the check is made on every request.
 */
import { realpathSync, statSync } from 'node:fs';
import { basename, isAbsolute, relative } from 'node:path';
import type { AssetFileAnswer } from '../../../shared/domain.js';

/** The file system calls the rule makes (real ones by default; tests may pass others). */
export interface AssetFs {
  realpath(path: string): string;
  stat(path: string): { isFile(): boolean; size: number };
}

const nodeFs: AssetFs = { realpath: (p) => realpathSync(p), stat: (p) => statSync(p) };

/** True when `path` is strictly inside `root` (not the root itself). Both must be resolved already. */
function strictlyInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** The ledger row's file, if it may be served: its real path and size. */
export function confineAssetFile(
  asset: { id: string; path: string; mediaType: string },
  outputRoot: string,
  fs: AssetFs = nodeFs,
): AssetFileAnswer {
  const missing: AssetFileAnswer = {
    ok: false,
    refusal: 'missing',
    message: `The file of asset ${basename(asset.path)} is missing from disk.`,
  };
  if (!isAbsolute(asset.path) || asset.path.includes('\0'))
    return { ok: false, refusal: 'outside', message: 'The asset has no usable path.' };
  let root: string;
  let real: string;
  try {
    root = fs.realpath(outputRoot);
    real = fs.realpath(asset.path);
  } catch {
    return missing;
  }
  if (!strictlyInside(root, real))
    return { ok: false, refusal: 'outside', message: 'This asset lies outside the output folder and is not served.' };
  try {
    const s = fs.stat(real);
    if (!s.isFile()) return { ok: false, refusal: 'missing', message: `Asset ${basename(asset.path)} is not a file.` };
    return {
      ok: true,
      id: asset.id,
      path: real,
      fileName: basename(asset.path),
      mediaType: asset.mediaType,
      bytes: s.size,
    };
  } catch {
    return missing;
  }
}
