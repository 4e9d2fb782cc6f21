/**
 * One output file being stored. The download's chunks go to a temp file and are hashed (SHA-256)
 * and counted as they pass — one pass, the file is never read back — and its first 512 KB are kept
 * for the image size (what image-size would read from the file). At most `maxBytes` (the
 * output_max_gb setting): a larger body is refused before it fills the disk. `finish` fsyncs and
 * closes; the caller renames it to its final name.
 *
 * File-system failures that mean "the output folder cannot take files now" — full, over quota,
 * read-only, not writable — are OutputStoreError with `waits`: the farm holds and retries by itself
 * (scheduler/storage-hold.ts) instead of burning the job's attempts on a disk an operator must free.
 */
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ShotfarmError } from '../../../shared/errors.js';
import { closeFd, openFd, syncFd, writeAll } from './fd-calls.js';

/** As much of the file's start as image-size reads from a file. */
const HEAD_BYTES = 512 * 1024;

/** The file calls an output makes (injectable: tests use a disk that fills up). */
export interface OutputHandle {
  write(chunk: Uint8Array): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface OutputFs {
  /** Creates `path` for writing; it must not exist yet. */
  create(path: string): Promise<OutputHandle>;
}

export const nodeOutputFs: OutputFs = {
  async create(path) {
    const fd = await openFd(path, 'wx');
    return { write: (chunk) => writeAll(fd, chunk), sync: () => syncFd(fd), close: () => closeFd(fd) };
  },
};

/** A file-system failure while storing an output; `waits` when the farm should hold until it is fixed. */
export class OutputStoreError extends ShotfarmError {
  constructor(
    readonly fsCode: string | null,
    readonly waits: boolean,
    message: string,
  ) {
    super('storage', message, { retryable: waits });
    this.name = 'OutputStoreError';
  }
}

/** An output larger than the farm takes (output_max_gb): the same render would make it again. */
export class OutputTooLarge extends ShotfarmError {
  constructor(
    readonly fileName: string,
    readonly limitBytes: number,
    readonly bytes: number | null,
  ) {
    super(
      'bad_input',
      `the output ${fileName} is ${bytes === null ? 'larger than' : `${formatBytes(bytes)}, over`} the ${formatBytes(limitBytes)} limit (setting output_max_gb)`,
    );
    this.name = 'OutputTooLarge';
  }
}

export function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${+(n / 1024 ** 3).toFixed(2)} GB`;
  if (n >= 1024 ** 2) return `${+(n / 1024 ** 2).toFixed(1)} MB`;
  return `${n} bytes`;
}

/** Words (and whether to wait) for a failure storing `what` in `dir`. */
export function outputFsError(err: unknown, what: string, dir: string): ShotfarmError {
  if (err instanceof ShotfarmError) return err;
  const code = (err as NodeJS.ErrnoException).code ?? null;
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return new OutputStoreError(
        code,
        true,
        `output disk full: ${what} could not be written to ${dir}. Free some space; the farm waits and retries by itself`,
      );
    case 'EROFS':
      return new OutputStoreError(
        code,
        true,
        `the output folder ${dir} is on a read-only disk: ${what} could not be written; the farm waits and retries by itself`,
      );
    case 'EACCES':
    case 'EPERM':
      return new OutputStoreError(
        code,
        true,
        `the output folder ${dir} is not writable by this user: ${what} could not be written; the farm waits and retries by itself`,
      );
    default:
      return new OutputStoreError(code, false, `${what} could not be written to ${dir}: ${(err as Error).message}`);
  }
}

export interface StoredOutput {
  bytes: number;
  sha256: string;
  /** The file's first bytes (up to 512 KB), for its image size. */
  head: Buffer;
}

export class OutputFile {
  private handle: OutputHandle | null = null;
  private bytes = 0;
  private readonly hash = createHash('sha256');
  private readonly head: Buffer[] = [];
  private headBytes = 0;

  constructor(
    readonly path: string,
    private readonly o: { fileName: string; maxBytes: number; fs?: OutputFs },
  ) {}

  /** The body is about to come (its announced length, if any): refuse a too-large one before a byte is written. */
  async begin(contentLength: number | null): Promise<void> {
    if (contentLength !== null && contentLength > this.o.maxBytes)
      throw new OutputTooLarge(this.o.fileName, this.o.maxBytes, contentLength);
    if (this.handle) return;
    try {
      this.handle = await (this.o.fs ?? nodeOutputFs).create(this.path);
    } catch (err) {
      throw outputFsError(err, this.o.fileName, dirname(this.path));
    }
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (!this.handle) await this.begin(null);
    if (this.bytes + chunk.byteLength > this.o.maxBytes)
      throw new OutputTooLarge(this.o.fileName, this.o.maxBytes, null);
    this.hash.update(chunk);
    if (this.headBytes < HEAD_BYTES) {
      const part = Buffer.from(chunk.subarray(0, HEAD_BYTES - this.headBytes));
      this.head.push(part);
      this.headBytes += part.byteLength;
    }
    try {
      await (this.handle as OutputHandle).write(chunk);
    } catch (err) {
      throw outputFsError(err, this.o.fileName, dirname(this.path));
    }
    this.bytes += chunk.byteLength;
  }

  /** Durable on disk (fsync) and closed; what was stored. */
  async finish(): Promise<StoredOutput> {
    if (!this.handle) await this.begin(null);
    const handle = this.handle as OutputHandle;
    try {
      await handle.sync();
    } catch (err) {
      throw outputFsError(err, this.o.fileName, dirname(this.path));
    } finally {
      this.handle = null;
      await handle.close().catch(() => undefined);
    }
    return { bytes: this.bytes, sha256: this.hash.digest('hex'), head: Buffer.concat(this.head) };
  }

  /** Gives up: closes and removes the temp file (never throws). */
  async discard(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    await handle?.close().catch(() => undefined);
    await rm(this.path, { force: true }).catch(() => undefined);
  }
}
