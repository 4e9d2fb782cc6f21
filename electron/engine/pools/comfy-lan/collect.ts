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
import type { ComfyClient } from '../../comfy/client.js';
import { outputFiles, type HistoryEntry } from '../../comfy/responses.js';
import type { OutputFs } from '../../files/output-file.js';
import { outputPath } from '../../files/output-paths.js';
import type { TakeKey } from '../../../../shared/take-key.js';
import type { StoredAsset } from '../../store/asset-store.js';
import { prepareTakeDir, storeOutput } from '../attempt/take-files.js';

/** The files worth keeping: final outputs, not `temp` previews. */
export function collectableOutputs(entry: HistoryEntry) {
  return outputFiles(entry.outputs).filter((f) => f.type === 'output');
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
  client: ComfyClient,
  entry: HistoryEntry,
  root: string,
  take: TakeKey,
  limits: CollectLimits,
  signal?: AbortSignal,
): Promise<StoredAsset[]> {
  const dir = await prepareTakeDir(root, take);
  const assets: StoredAsset[] = [];
  for (const ref of collectableOutputs(entry)) {
    const finalPath = outputPath(dir, ref.filename, ref.subfolder);
    assets.push(
      await storeOutput(finalPath, ref.filename, ref.nodeId, limits, (file) =>
        client.downloadView({ filename: ref.filename, subfolder: ref.subfolder, type: ref.type }, file, {
          timeoutMs: limits.silenceMs ?? 120_000,
          deadlineMs: limits.deadlineMs,
          ...(signal ? { signal } : {}),
        }),
      ),
    );
  }
  return assets;
}
