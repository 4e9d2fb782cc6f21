/**
 * Uploads a finished output to S3-compatible storage and confirms it (SPEC §8: the job completes
 * only once the upload is confirmed). The file streams up with its SHA-256 (`x-amz-checksum-sha256`),
 * so a server that checks checksums refuses damaged bytes; then the stored object is confirmed:
 * by the checksum the server reports (HeadObject with checksum mode), or — for servers that keep
 * no checksums (older MinIO, s3rver) — by downloading it again and hashing it. "The PUT returned
 * 200" is not proof enough for a render that took an hour.
 */
import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { ShotfarmError } from '../../../shared/errors.js';
import { mediaTypeOf } from '../files/output-paths.js';
import type { TakeKey } from '../../../shared/take-key.js';
import type { Db } from '../store/database.js';
import { objectKeyFor } from './object-key.js';
import { describeS3Error, s3Failure, secretsOf, type S3Where } from './s3-errors.js';
import { getS3Settings, resolveS3Config, type S3Config } from './s3-settings.js';
import type { EngineEnv } from '../engine-env.js';

export interface UploadResult {
  key: string;
  etag: string;
  /** How the stored object was confirmed. */
  confirmedBy: 'server-checksum' | 'download';
}

export interface S3UploaderOptions {
  /** Only warnings, and never with credentials (the client's own logger is replaced). */
  log?: (message: string) => void;
  connectTimeoutMs?: number;
  /** Longest silence on a socket before the request is abandoned. */
  socketTimeoutMs?: number;
  /** Tries per request for HEAD/GET (a streamed PUT is never retried by the client; the runner retries it). */
  maxAttempts?: number;
}

/** A single PUT's limit; larger files would need a multipart upload, which is not done here. */
const MAX_SINGLE_PUT = 5 * 1024 ** 3;

export class S3Uploader {
  private readonly client: S3Client;
  private readonly secrets: string[];

  /** The uploader for the `s3` setting, or null when uploads are off. */
  static fromSettings(db: Db, env: EngineEnv, opts: S3UploaderOptions = {}): S3Uploader | null {
    const settings = getS3Settings(db);
    return settings ? new S3Uploader(resolveS3Config(settings, env), opts) : null;
  }

  constructor(
    readonly config: S3Config,
    opts: S3UploaderOptions = {},
  ) {
    const log = opts.log ?? (() => undefined);
    this.secrets = secretsOf(config.credentials);
    this.client = new S3Client({
      region: config.region,
      ...(config.endpoint !== undefined ? { endpoint: config.endpoint } : {}),
      forcePathStyle: config.forcePathStyle,
      // A copy: the client annotates the object it is given, and the config stays ours.
      credentials: { ...config.credentials },
      maxAttempts: opts.maxAttempts ?? 3,
      requestHandler: {
        connectionTimeout: opts.connectTimeoutMs ?? 5_000,
        requestTimeout: opts.socketTimeoutMs ?? 60_000,
      },
      // Replaces the default (console) for the client's warnings; debug/info would carry request details.
      logger: {
        debug: () => undefined,
        info: () => undefined,
        warn: (m: unknown) => log(`s3: ${String(m)}`),
        error: () => undefined,
      },
    });
  }

  /** `<prefix><project>/<episode>/<shot>/<stage>/take-<n>/<file>` */
  keyFor(take: TakeKey, fileName: string): string {
    return objectKeyFor(this.config.prefix, take, fileName);
  }

  private where(key: string): S3Where {
    return {
      target: `s3://${this.config.bucket}/${key}`,
      server: this.config.endpoint ?? `AWS S3 (${this.config.region})`,
      bucket: this.config.bucket,
      key,
    };
  }

  /**
   * Streams `filePath` to `key` with its SHA-256, then confirms the stored object matches.
   * Throws ShotfarmError('unavailable', retryable) when the upload or its confirmation fails.
   */
  async upload(filePath: string, key: string, sha256Hex: string): Promise<UploadResult> {
    if (!/^[0-9a-fA-F]{64}$/.test(sha256Hex))
      throw new ShotfarmError('bad_input', `"${sha256Hex}" is not a SHA-256 in hex.`);
    const expected = sha256Hex.toLowerCase();
    const where = this.where(key);
    const what = `Uploading ${basename(filePath)} to`;

    // One handle for the size and the bytes: the file cannot be swapped between the two, and a
    // stream on an open handle never opens the path again after a failure has been reported.
    let fh: FileHandle;
    try {
      fh = await open(filePath, 'r');
    } catch (err) {
      throw new ShotfarmError(
        'storage',
        `${what} ${where.target} failed: the local file ${filePath} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}).`,
      );
    }
    let putEtag: string | undefined;
    try {
      const size = (await fh.stat()).size;
      if (size > MAX_SINGLE_PUT) {
        throw new ShotfarmError(
          'storage',
          `${what} ${where.target} failed: the file is ${(size / 1024 ** 3).toFixed(1)} GB, over the 5 GB limit of a single upload.`,
        );
      }
      let readError: NodeJS.ErrnoException | null = null;
      const body = fh.createReadStream({ autoClose: false });
      body.on('error', (err) => (readError = err));
      try {
        const put = await this.client.send(
          new PutObjectCommand({
            Bucket: this.config.bucket,
            Key: key,
            Body: body,
            ContentLength: size,
            ContentType: mediaTypeOf(filePath),
            ChecksumAlgorithm: 'SHA256',
            ChecksumSHA256: Buffer.from(expected, 'hex').toString('base64'),
            // Kept with the object for tools (and people) that check it later.
            Metadata: { sha256: expected },
          }),
        );
        putEtag = put.ETag;
      } catch (err) {
        const local = readError as NodeJS.ErrnoException | null;
        if (local)
          throw new ShotfarmError(
            'storage',
            `${what} ${where.target} failed: reading ${filePath} failed (${local.code ?? local.message}).`,
          );
        throw describeS3Error(err, what, where, this.secrets);
      } finally {
        body.destroy();
      }
      const confirmed = await this.confirm(key, size, expected, where);
      return { key, etag: (confirmed.etag ?? putEtag ?? '').replace(/"/g, ''), confirmedBy: confirmed.by };
    } finally {
      await fh.close().catch(() => undefined);
    }
  }

  private async confirm(
    key: string,
    size: number,
    expected: string,
    where: S3Where,
  ): Promise<{ etag: string | undefined; by: UploadResult['confirmedBy'] }> {
    const what = 'Confirming the upload of';
    let head;
    try {
      head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.config.bucket, Key: key, ChecksumMode: 'ENABLED' }),
      );
    } catch (err) {
      throw describeS3Error(err, what, where, this.secrets);
    }
    if (head.ContentLength !== undefined && head.ContentLength !== size) {
      return this.mismatch(where, `the stored object has ${head.ContentLength} bytes, the file ${size}`);
    }
    // A multipart checksum ("…-3") is a checksum of part checksums, not of the file: not comparable.
    const serverSum =
      head.ChecksumSHA256 && !head.ChecksumSHA256.includes('-')
        ? Buffer.from(head.ChecksumSHA256, 'base64').toString('hex')
        : null;
    if (serverSum !== null) {
      if (serverSum !== expected)
        return this.mismatch(where, `the server reports SHA-256 ${serverSum}, the ledger ${expected}`);
      return { etag: head.ETag, by: 'server-checksum' };
    }

    let actual: string;
    try {
      const got = await this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: key }));
      const hash = createHash('sha256');
      for await (const chunk of got.Body as AsyncIterable<Uint8Array>) hash.update(chunk);
      actual = hash.digest('hex');
    } catch (err) {
      throw describeS3Error(err, what, where, this.secrets);
    }
    if (actual !== expected)
      return this.mismatch(where, `the stored object's SHA-256 is ${actual}, the ledger's ${expected}`);
    return { etag: head.ETag, by: 'download' };
  }

  /** A stored object that does not match is removed (best effort), so nothing downstream takes it for the render. */
  private async mismatch(where: S3Where, why: string): Promise<never> {
    let removed = false;
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: where.key }));
      removed = true;
    } catch {
      // Reported below; a retried upload overwrites it anyway.
    }
    throw s3Failure(
      'Confirming the upload of',
      where,
      'checksum',
      `${why}. The stored object ${removed ? 'was removed' : 'could not be removed'}; upload the file again.`,
      { removed },
    );
  }

  /** Closes the client's sockets. */
  close(): void {
    this.client.destroy();
  }
}
