/**
 * A shot list with its input images, from a browser or the desktop in studio mode: what was
 * dropped or picked (a folder, or the list plus its images) is split into the list and its inputs,
 * each input named by its path relative to the list's folder (as the list writes it); the inputs
 * are hashed, the farm says which it lacks, those are sent, and the preview gets name → hash.
 */
import { errorMessage, type ShotfarmClient } from '../../client/client.js';
import { sha256OfBlob } from '../../lib/sha256.js';
import type { PickedFile } from './split-picked.js';

/** Reads a drop: files, and folders walked through the entries API (so a dropped folder brings its images). */
export async function droppedFiles(dt: DataTransfer): Promise<PickedFile[]> {
  const entries = Array.from(dt.items ?? [])
    .map((i) => (typeof i.webkitGetAsEntry === 'function' ? i.webkitGetAsEntry() : null))
    .filter((e): e is FileSystemEntry => e !== null);
  if (!entries.some((e) => e.isDirectory)) return Array.from(dt.files).map((file) => ({ file, path: file.name }));
  const out: PickedFile[] = [];
  const walk = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
    if (entry.isFile) {
      const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
      out.push({ file, path: prefix + entry.name });
    } else if (entry.isDirectory) {
      const reader = (entry as FileSystemDirectoryEntry).createReader();
      // readEntries answers in batches until an empty one.
      for (;;) {
        const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
        if (batch.length === 0) break;
        for (const child of batch) await walk(child, `${prefix}${entry.name}/`);
      }
    }
  };
  for (const e of entries) await walk(e, '');
  return out;
}

/** Files from a file input (webkitRelativePath is set when a folder was chosen). */
export function pickedFromInput(files: FileList | null): PickedFile[] {
  return Array.from(files ?? []).map((file) => ({ file, path: file.webkitRelativePath || file.name }));
}

/** Hashes the inputs, sends those the farm lacks, and answers name → hash for import.preview. */
export async function sendInputs(
  client: ShotfarmClient,
  inputs: readonly { name: string; file: File }[],
): Promise<Record<string, string>> {
  const upload = client.uploadInput?.bind(client);
  if (!upload)
    throw new Error("This app reads input files from the shot list's folder; open the list with Import… instead.");
  const hashed = await Promise.all(inputs.map(async (i) => ({ ...i, sha256: await sha256OfBlob(i.file) })));
  const { missing } = await client.call('uploads.check', {
    files: hashed.map((h) => ({ name: h.name, sha256: h.sha256, size: h.file.size })),
  });
  const needed = new Set(missing);
  for (const h of hashed) {
    if (!needed.has(h.sha256)) continue;
    needed.delete(h.sha256);
    try {
      await upload(h.sha256, h.name, h.file);
    } catch (err) {
      throw new Error(`${h.name} could not be sent: ${errorMessage(err)}`);
    }
  }
  return Object.fromEntries(hashed.map((h) => [h.name, h.sha256]));
}
