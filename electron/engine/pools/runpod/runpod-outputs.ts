/**
 * Storing a RunPod job's outputs (SPEC §4.5, as collect.ts does for a LAN server): each image of
 * worker-comfyui's answer — base64 data, or an S3 URL fetched with a size cap — is written to a
 * temporary name in the take's folder (hashed and measured as written, at most output_max_gb),
 * fsynced and renamed to its final name — storeOutput of ../attempt/take-files.ts, as for a LAN download. Nothing is
 * recorded here: the caller writes the ledger rows and `completed` in one transaction.
 */
import { ShotfarmError } from '../../../../shared/errors.js';
import { OutputTooLarge, type OutputFs } from '../../files/output-file.js';
import { outputPath } from '../../files/output-paths.js';
import type { TakeKey } from '../../../../shared/take-key.js';
import { prepareTakeDir, storeOutput } from '../attempt/take-files.js';
import type { StoredAsset } from '../../store/asset-store.js';
import type { WorkerImage } from './runpod-protocol.js';

/** The most one output may weigh (an S3 download or a decoded image): a bound on a bad answer. */
const MAX_OUTPUT_BYTES = 2 * 1024 ** 3;

async function bytesOf(img: WorkerImage, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
  if (img.type === 'base64') {
    const data =
      img.data.includes(',') && img.data.startsWith('data:') ? img.data.slice(img.data.indexOf(',') + 1) : img.data;
    return Buffer.from(data, 'base64');
  }
  const res = await fetch(img.data, {
    signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(120_000)]) : AbortSignal.timeout(120_000),
  });
  if (!res.ok)
    throw new ShotfarmError(
      'storage',
      `the output ${img.filename} could not be fetched from its S3 URL (HTTP ${res.status})`,
    );
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new OutputTooLarge(img.filename, maxBytes, declared);
  }
  // Counted as it arrives: an answer that announces no length (or a false one) is cut at the limit, not read whole.
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of res.body ?? []) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw new OutputTooLarge(img.filename, maxBytes, null);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, bytes);
}

export interface WorkerImageLimits {
  /** The largest file taken (output_max_gb), as for a LAN download. */
  maxBytes: number;
  /** The file calls (tests: a disk that fills up). */
  fs?: OutputFs;
}

export async function storeWorkerImages(
  images: readonly WorkerImage[],
  root: string,
  take: TakeKey,
  limits: WorkerImageLimits,
  signal?: AbortSignal,
): Promise<StoredAsset[]> {
  const dir = await prepareTakeDir(root, take);
  const maxBytes = Math.min(limits.maxBytes, MAX_OUTPUT_BYTES);
  const assets: StoredAsset[] = [];
  for (const img of images) {
    const finalPath = outputPath(dir, img.filename);
    // The same way as a LAN download (collect.ts): hashed and measured as written, bounded, a full disk an OutputStoreError.
    assets.push(
      await storeOutput(finalPath, img.filename, null, { ...limits, maxBytes }, async (file) => {
        const bytes = await bytesOf(img, maxBytes, signal);
        if (bytes.length === 0) throw new ShotfarmError('storage', `the output ${img.filename} arrived empty`);
        await file.begin(bytes.length);
        await file.write(bytes);
      }),
    );
  }
  return assets;
}
