/**
 * Collect (SPEC §4.5): download every output of a finished prompt through /view to a temporary
 * name in the take's folder — hashed (SHA-256) and measured as it streams, fsync'd — then rename it
 * to its final name and fsync the folder. Nothing is recorded here: the caller writes the ledger
 * rows and `completed` in one transaction, so a job is never completed before its files are stored.
 *
 * Bounded: each file by `maxBytes` (output_max_gb), each download by an overall deadline (derived
 * from the template's timeout by the caller) besides the silence timeout. A full or unwritable
 * output disk is an OutputStoreError that makes the farm wait (files/output-file.ts), never a
 * failed attempt.
 */
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { imageSize } from 'image-size';
import type { ComfyClient } from '../comfy/client.js';
import { outputFiles, type HistoryEntry } from '../comfy/responses.js';
import { syncFolder, TEMP_PREFIX, tempPathFor } from '../files/atomic-write.js';
import { OutputFile, outputFsError, type OutputFs } from '../files/output-file.js';
import { mediaTypeOf, outputPath, takeDir, type TakeKey } from '../files/output-paths.js';
import { randomId } from '../ids.js';
import type { StoredAsset } from '../store/asset-store.js';

/**
 * The last steps of storing one output, whatever brought its bytes (a LAN /view download, a RunPod
 * answer): the OutputFile (hashed and measured as it was written) is fsynced and closed, renamed to
 * its final name, the folder fsynced. Returns its ledger facts; records nothing. The caller
 * discards the file when this throws.
 */
export async function settleOutput(file: OutputFile, finalPath: string, fileName: string, nodeId: string | null): Promise<StoredAsset> {
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
  return { id: randomId(), nodeId, path: finalPath, sha256: stored.sha256, bytes: stored.bytes, mediaType, width, height };
}

/** The files worth keeping: final outputs, not `temp` previews. */
export function collectableOutputs(entry: HistoryEntry) {
  return outputFiles(entry.outputs).filter((f) => f.type === 'output');
}

/**
 * Temp files another process left in this take's folder (an engine stopped or killed mid-download):
 * removed before collecting again. Ours (this pid) may belong to a download still running.
 */
async function removeLeftovers(dir: string): Promise<void> {
  const mine = `${TEMP_PREFIX}${process.pid}-`;
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(names.filter((n) => n.startsWith(TEMP_PREFIX) && !n.startsWith(mine) && n.endsWith('.tmp')).map((n) => rm(join(dir, n), { force: true }).catch(() => undefined)));
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

export interface CollectLimits {
  /** The largest file taken (output_max_gb). */
  maxBytes: number;
  /** The longest one download may take, start to end. */
  deadlineMs: number;
  /** The longest silence in a download (no byte). */
  silenceMs?: number;
  /** The file calls (tests: a disk that fills up). */
  fs?: OutputFs;
}

export async function collectOutputs(
  client: ComfyClient, entry: HistoryEntry, root: string, take: TakeKey, limits: CollectLimits, signal?: AbortSignal,
): Promise<StoredAsset[]> {
  const dir = await prepareTakeDir(root, take);
  const assets: StoredAsset[] = [];
  for (const ref of collectableOutputs(entry)) {
    const finalPath = outputPath(dir, ref.filename, ref.subfolder);
    const file = new OutputFile(tempPathFor(finalPath), { fileName: ref.filename, maxBytes: limits.maxBytes, ...(limits.fs ? { fs: limits.fs } : {}) });
    try {
      await client.downloadView({ filename: ref.filename, subfolder: ref.subfolder, type: ref.type }, file, {
        timeoutMs: limits.silenceMs ?? 120_000, deadlineMs: limits.deadlineMs, ...(signal ? { signal } : {}),
      });
      assets.push(await settleOutput(file, finalPath, ref.filename, ref.nodeId));
    } catch (err) {
      await file.discard();
      throw err;
    }
  }
  return assets;
}
