/**
 * Files that travel with a shot list (a browser or studio-mode desktop import): the page hashes
 * each input image (SHA-256), asks which hashes the server lacks (`uploads.check`), streams those
 * with `PUT /api/uploads/<sha256>?name=<input name>`, and sends the preview a map of input names (as
 * the shot list writes them) to hashes. The server stores each file once, as <data>/uploads/<sha256>;
 * a job references the stored file, never a path the client chose.
 */
import { z } from 'zod';

export const SHA256_PATTERN = /^[0-9a-f]{64}$/;
export const sha256Schema = z.string().regex(SHA256_PATTERN, 'a SHA-256 is 64 lowercase hex digits');

/** The upload route's path for a hash. */
export function uploadPath(sha256: string, name: string): string {
  return `/api/uploads/${sha256}?name=${encodeURIComponent(name)}`;
}

/**
 * Why an input name cannot be uploaded, or null: it is how the shot list names the file, relative to
 * the list's folder, so it may hold folders (plates/sh010.png) but never climb out, start at a root
 * or a drive, or carry a NUL — the same rules as an input found in the list's own folder.
 */
export function uploadNameProblem(name: string): string | null {
  const said = `"${name.length > 120 ? `${name.slice(0, 120)}…` : name}"`;
  if (name === '' || name.length > 1_024) return `the file name ${said} must be 1 to 1024 characters`;
  if (name.includes('\0')) return `the file name ${said} contains a NUL character`;
  if (name.startsWith('/') || name.startsWith('\\') || /^[A-Za-z]:/.test(name))
    return `the file name ${said} is an absolute path; send names relative to the shot list's folder (e.g. plates/sh010.png)`;
  if (name.split(/[\\/]/).includes('..'))
    return `the file name ${said} climbs out of the shot list's folder with ".."; refused`;
  return null;
}

/** One file the page means to send (or may not need to). */
export const uploadFileSchema = z.strictObject({
  name: z.string().min(1).max(1_024),
  sha256: sha256Schema,
  size: z.number().int().min(0),
});

export const uploadsCheckInput = z.strictObject({ files: z.array(uploadFileSchema).max(10_000) });

export interface UploadsCheck {
  /** The hashes the server does not hold yet: send these. */
  missing: string[];
  fileMaxBytes: number;
  importMaxBytes: number;
}

/** import.preview's `uploads`: input name as written in the shot list → its uploaded file's hash. */
export const importUploadsSchema = z.record(z.string().min(1).max(1_024), sha256Schema);
