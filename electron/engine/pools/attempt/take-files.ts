/**
 * A take's output files, whatever brought their bytes (a LAN /view download, a RunPod answer): the
 * take's folder made durable and cleared of another process's leftovers, and each output settled —
 * fsynced, renamed to its final name, its folder fsynced — into its ledger facts. Records nothing.
 */
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { imageSize } from 'image-size';
import { syncFolder, tempPathFor, TEMP_PREFIX } from '../../files/atomic-write.js';
import { OutputFile, outputFsError, type OutputFs } from '../../files/output-file.js';
import { mediaTypeOf, takeDir } from '../../files/output-paths.js';
import type { TakeKey } from '../../../../shared/take-key.js';
import { randomId } from '../../ids.js';
import type { StoredAsset } from '../../store/asset-store.js';

/**
 * The last steps of storing one output, whatever brought its bytes (a LAN /view download, a RunPod
 * answer): the OutputFile (hashed and measured as it was written) is fsynced and closed, renamed to
 * its final name, the folder fsynced. Returns its ledger facts; records nothing. The caller
 * discards the file when this throws.
 */
export async function settleOutput(
  file: OutputFile,
  finalPath: string,
  fileName: string,
  nodeId: string | null,
): Promise<StoredAsset> {
  const dir = dirname(finalPath);
  const stored = await file.finish();
  try {
    await rename(file.path, finalPath);
  } catch (err) {
    throw outputFsError(err, fileName, dir);
  }
  await syncFolder(dir);
  const mediaType = mediaTypeOf(finalPath);
  const { width, height } = mediaType.startsWith('image/') ? sizeOf(stored.head) : { width: null, height: null };
  return {
    id: randomId(),
    nodeId,
    path: finalPath,
    sha256: stored.sha256,
    bytes: stored.bytes,
    mediaType,
    width,
    height,
  };
}

/**
 * One output stored, whatever brings its bytes: `fill` writes them into an OutputFile at a
 * temporary name beside `finalPath` (hashed and measured as written, at most `maxBytes`), then it
 * is settled (settleOutput). The temp file is discarded when anything throws, and the error goes on.
 */
export async function storeOutput(
  finalPath: string,
  fileName: string,
  nodeId: string | null,
  limits: { maxBytes: number; fs?: OutputFs },
  fill: (file: OutputFile) => Promise<unknown>,
): Promise<StoredAsset> {
  const file = new OutputFile(tempPathFor(finalPath), {
    fileName,
    maxBytes: limits.maxBytes,
    ...(limits.fs ? { fs: limits.fs } : {}),
  });
  try {
    await fill(file);
    return await settleOutput(file, finalPath, fileName, nodeId);
  } catch (err) {
    await file.discard();
    throw err;
  }
}

/**
 * Temp files another process left in this take's folder (an engine stopped or killed mid-download):
 * removed before collecting again. Ours (this pid) may belong to a download still running.
 */
async function removeLeftovers(dir: string): Promise<void> {
  const mine = `${TEMP_PREFIX}${process.pid}-`;
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((n) => n.startsWith(TEMP_PREFIX) && !n.startsWith(mine) && n.endsWith('.tmp'))
      .map((n) => rm(join(dir, n), { force: true }).catch(() => undefined)),
  );
}

/** Width and height from the file's first bytes; null for formats image-size does not know (EXR variants…). */
function sizeOf(head: Buffer): { width: number | null; height: number | null } {
  try {
    const s = imageSize(head);
    return { width: s.width ?? null, height: s.height ?? null };
  } catch {
    return { width: null, height: null };
  }
}

/**
 * The take's folder, made if missing (a full or unwritable disk is an OutputStoreError) and
 * cleared of temp files another process left there. Whatever brings the outputs starts here.
 * Folders it makes are made durable in their parents (each parent fsynced) before any output is
 * renamed into them: the output's own folder sync would not keep a folder that was never synced
 * where it was made. A folder just made holds no leftovers, so it is not read.
 */
export async function prepareTakeDir(root: string, take: TakeKey): Promise<string> {
  const dir = takeDir(root, take);
  let first: string | undefined;
  try {
    first = await mkdir(dir, { recursive: true });
  } catch (err) {
    throw outputFsError(err, `the folder for ${take.shot} ${take.stage}`, dirname(dir));
  }
  if (first === undefined) await removeLeftovers(dir);
  else await Promise.all(newFolders(first, dir).map((made) => syncFolder(dirname(made))));
  return dir;
}

/** The folders from `first` (the topmost one mkdir made) down to `leaf`: each one's parent is synced. */
export function newFolders(first: string, leaf: string): string[] {
  const out: string[] = [];
  for (let p = leaf; ; p = dirname(p)) {
    out.push(p);
    if (p === first || dirname(p) === p) return out;
  }
}
