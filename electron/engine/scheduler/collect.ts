/**
 * Collect (SPEC §4.5): download every output of a finished prompt through /view to a temporary
 * name in the take's folder, fsync, rename to the final name, hash (SHA-256) and measure it.
 * Nothing is recorded here: the caller writes the ledger rows and `completed` in one transaction,
 * so a job is never completed before its files are durably stored.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { imageSizeFromFile } from 'image-size/fromFile';
import type { ComfyClient } from '../comfy/client.js';
import { outputFiles, type HistoryEntry } from '../comfy/responses.js';
import { tempPathFor } from '../files/atomic-write.js';
import { mediaTypeOf, outputPath, takeDir, type TakeKey } from '../files/output-paths.js';
import { randomId } from '../ids.js';
import type { StoredAsset } from '../store/asset-store.js';

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function fsyncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Not possible on every platform (Windows); the rename itself is atomic.
  }
}

/**
 * The last steps of storing one output, whatever brought its bytes (a LAN /view download, a RunPod
 * answer): the fsynced temporary file is renamed to its final name, the folder fsynced, the file
 * measured and hashed. Returns its ledger facts; records nothing.
 */
export async function settleOutput(tmp: string, finalPath: string, nodeId: string | null, bytes: number): Promise<StoredAsset> {
  await rename(tmp, finalPath);
  await fsyncDir(dirname(finalPath));
  const mediaType = mediaTypeOf(finalPath);
  let width: number | null = null;
  let height: number | null = null;
  if (mediaType.startsWith('image/')) {
    try {
      const size = await imageSizeFromFile(finalPath);
      width = size.width ?? null;
      height = size.height ?? null;
    } catch {
      // An image format image-size does not know (EXR variants…): keep the file, leave the size empty.
    }
  }
  return { id: randomId(), nodeId, path: finalPath, sha256: await sha256File(finalPath), bytes, mediaType, width, height };
}

/** The files worth keeping: final outputs, not `temp` previews. */
export function collectableOutputs(entry: HistoryEntry) {
  return outputFiles(entry.outputs).filter((f) => f.type === 'output');
}

export async function collectOutputs(
  client: ComfyClient, entry: HistoryEntry, root: string, take: TakeKey, signal?: AbortSignal,
): Promise<StoredAsset[]> {
  const dir = takeDir(root, take);
  await mkdir(dir, { recursive: true });
  const assets: StoredAsset[] = [];
  for (const ref of collectableOutputs(entry)) {
    const finalPath = outputPath(dir, ref.filename, ref.subfolder);
    const tmp = tempPathFor(finalPath);
    try {
      const bytes = await client.downloadView({ filename: ref.filename, subfolder: ref.subfolder, type: ref.type }, tmp, {
        fsync: true, timeoutMs: 120_000, ...(signal ? { signal } : {}),
      });
      assets.push(await settleOutput(tmp, finalPath, ref.nodeId, bytes));
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
  }
  return assets;
}
