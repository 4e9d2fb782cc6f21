/**
 * Storing a RunPod job's outputs (SPEC §4.5, as collect.ts does for a LAN server): each image of
 * worker-comfyui's answer — base64 data, or an S3 URL fetched with a size cap — is written to a
 * temporary name in the take's folder, fsynced, renamed to its final name and hashed. Nothing is
 * recorded here: the caller writes the ledger rows and `completed` in one transaction.
 */
import { mkdir, open, rm } from 'node:fs/promises';
import { ShotfarmError } from '../../../shared/errors.js';
import { tempPathFor } from '../files/atomic-write.js';
import { outputPath, takeDir, type TakeKey } from '../files/output-paths.js';
import { settleOutput } from '../scheduler/collect.js';
import type { StoredAsset } from '../store/asset-store.js';
import type { WorkerImage } from './runpod-protocol.js';

/** The most one output may weigh (an S3 download or a decoded image): a bound on a bad answer. */
const MAX_OUTPUT_BYTES = 2 * 1024 ** 3;

async function bytesOf(img: WorkerImage, signal?: AbortSignal): Promise<Buffer> {
  if (img.type === 'base64') {
    const data = img.data.includes(',') && img.data.startsWith('data:') ? img.data.slice(img.data.indexOf(',') + 1) : img.data;
    return Buffer.from(data, 'base64');
  }
  const res = await fetch(img.data, { signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(120_000)]) : AbortSignal.timeout(120_000) });
  if (!res.ok) throw new ShotfarmError('storage', `the output ${img.filename} could not be fetched from its S3 URL (HTTP ${res.status})`);
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > MAX_OUTPUT_BYTES) throw new ShotfarmError('storage', `the output ${img.filename} is larger than ${MAX_OUTPUT_BYTES} bytes; refused`);
  return Buffer.from(await res.arrayBuffer());
}

export async function storeWorkerImages(images: readonly WorkerImage[], root: string, take: TakeKey, signal?: AbortSignal): Promise<StoredAsset[]> {
  const dir = takeDir(root, take);
  await mkdir(dir, { recursive: true });
  const assets: StoredAsset[] = [];
  for (const img of images) {
    const finalPath = outputPath(dir, img.filename);
    const tmp = tempPathFor(finalPath);
    try {
      const bytes = await bytesOf(img, signal);
      if (bytes.length === 0) throw new ShotfarmError('storage', `the output ${img.filename} arrived empty`);
      if (bytes.length > MAX_OUTPUT_BYTES) throw new ShotfarmError('storage', `the output ${img.filename} is larger than ${MAX_OUTPUT_BYTES} bytes; refused`);
      const fh = await open(tmp, 'w');
      try {
        await fh.writeFile(bytes);
        await fh.sync();
      } finally {
        await fh.close();
      }
      assets.push(await settleOutput(tmp, finalPath, null, bytes.length));
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
  }
  return assets;
}
