/**
 * The few file-descriptor calls output storage makes, on Node's callback API, each as one promise.
 * A FileHandle (fs/promises) costs the main thread about twice as much per call — measured on this
 * project's machine, 20 µs vs 5–10 µs an fsync — and a stored output makes a dozen of them
 * (its file, and up to four folders synced).
 */
import fs from 'node:fs';

function call<T>(fn: (cb: (err: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));
}

export const openFd = (path: string, flags: string): Promise<number> => call<number>((cb) => fs.open(path, flags, cb));

/** Writes all of `chunk`: a write may take fewer bytes than given (a disk filling up). */
export async function writeAll(fd: number, chunk: Uint8Array): Promise<void> {
  for (let off = 0; off < chunk.byteLength; )
    off += await call<number>((cb) => fs.write(fd, chunk, off, chunk.byteLength - off, null, cb));
}

export const syncFd = (fd: number): Promise<void> => call<void>((cb) => fs.fsync(fd, (err) => cb(err, undefined)));

export const closeFd = (fd: number): Promise<void> =>
  call<void>((cb) => fs.close(fd, (err) => cb(err ?? null, undefined)));

/** open + fsync + close of one path; a failed fsync is reported after the descriptor is closed. */
export async function fsyncPath(path: string, flags: string): Promise<void> {
  const fd = await openFd(path, flags);
  try {
    await syncFd(fd);
  } finally {
    await closeFd(fd);
  }
}
