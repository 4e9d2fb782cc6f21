/**
 * Re-hashes files against the SHA-256 they were recorded with. Shared by freeze (refuse to
 * release a file that changed since the ledger saw it) and verify (check a delivery). Hashing
 * streams, a few files at a time: an episode's videos can be tens of gigabytes.
 */
import { sha256File } from '../files/file-hash.js';

export interface ExpectedFile {
  /** Where to read the file. */
  path: string;
  sha256: string;
}

export interface ChangedFile {
  path: string;
  expected: string;
  actual: string;
}

export interface UnreadableFile {
  path: string;
  error: string;
}

export interface FileCheck {
  checked: number;
  /** Files whose SHA-256 matches; everything matches when ok === checked. */
  ok: number;
  missing: string[];
  changed: ChangedFile[];
  /** Present but not readable (permissions, a folder in its place). */
  unreadable: UnreadableFile[];
}

/** Enough to keep a disk busy without opening hundreds of files at once. */
const CONCURRENCY = 4;

export async function checkFiles(files: readonly ExpectedFile[]): Promise<FileCheck> {
  const result: FileCheck = { checked: files.length, ok: 0, missing: [], changed: [], unreadable: [] };
  const outcomes: (() => void)[] = new Array(files.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < files.length) {
      const i = next++;
      const f = files[i]!;
      outcomes[i] = await checkOne(f, result);
    }
  }
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, files.length) }, worker));
  // Apply in manifest order, so reports list files in the order the operator sees them.
  for (const apply of outcomes) apply();
  return result;
}

async function checkOne(f: ExpectedFile, into: FileCheck): Promise<() => void> {
  try {
    const actual = await sha256File(f.path);
    if (actual === f.sha256.toLowerCase()) return () => void into.ok++;
    return () => void into.changed.push({ path: f.path, expected: f.sha256, actual });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return () => void into.missing.push(f.path);
    const reason =
      e.code === 'EACCES' || e.code === 'EPERM'
        ? 'permission denied'
        : e.code === 'EISDIR'
          ? 'a folder is in its place'
          : e.message;
    return () => void into.unreadable.push({ path: f.path, error: reason });
  }
}
