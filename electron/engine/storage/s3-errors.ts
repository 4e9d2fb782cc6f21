/**
 * Turns what the S3 client throws into words an operator can act on. The client's own errors
 * may carry the access key id (InvalidAccessKeyId has an AWSAccessKeyId field) and request
 * details, so nothing of them is passed on as is: the message is built here, and the little
 * server text kept is scrubbed of every credential first.
 */
import { ShotfarmError } from '../../../shared/errors.js';
import type { S3Credentials } from './s3-settings.js';

export type S3FailureReason = 'network' | 'credentials' | 'bucket' | 'server' | 'checksum' | 'other';

export interface S3Where {
  /** e.g. `s3://renders/Moonfall/…/key_00001_.png` */
  target: string;
  /** The server, for "could not be reached" (an endpoint URL, or "AWS S3 (eu-west-1)"). */
  server: string;
  bucket: string;
  key: string;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const CREDENTIAL_CODES = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'AccessDenied',
  'ExpiredToken',
  'InvalidToken',
  'Forbidden',
]);
const CHECKSUM_CODES = new Set([
  'BadDigest',
  'InvalidDigest',
  'XAmzContentSHA256Mismatch',
  'XAmzContentChecksumMismatch',
  'InvalidChecksum',
]);

export function scrub(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  return out;
}

export function secretsOf(c: S3Credentials): string[] {
  return [c.accessKeyId, c.secretAccessKey, c.sessionToken].filter((s): s is string => s !== undefined);
}

export function s3Failure(
  what: string,
  where: S3Where,
  reason: S3FailureReason,
  text: string,
  extra: Record<string, unknown> = {},
): ShotfarmError {
  // The job is not lost: its files are on disk, and the attempt runner retries the upload.
  return new ShotfarmError('unavailable', `${what} ${where.target} failed: ${text}`, {
    retryable: true,
    details: { reason, bucket: where.bucket, key: where.key, ...extra },
  });
}

export function describeS3Error(err: unknown, what: string, where: S3Where, secrets: readonly string[]): ShotfarmError {
  const e = err as {
    name?: string;
    code?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
    cause?: { code?: string };
  };
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const netCode = e.code ?? e.cause?.code;
  const status = e.$metadata?.httpStatusCode;
  const extra = { s3Code: name, ...(status !== undefined ? { httpStatus: status } : {}) };

  if ((netCode && NETWORK_CODES.has(netCode)) || name === 'TimeoutError' || name === 'RequestTimeout') {
    return s3Failure(
      what,
      where,
      'network',
      `the S3 server ${where.server} could not be reached (${netCode ?? name}). Check the endpoint and the network.`,
      extra,
    );
  }
  if (name === 'NoSuchBucket') {
    return s3Failure(
      what,
      where,
      'bucket',
      `the bucket "${where.bucket}" does not exist on ${where.server}. Create it, or fix the bucket in the s3 setting.`,
      extra,
    );
  }
  if (CREDENTIAL_CODES.has(name) || status === 401 || status === 403) {
    return s3Failure(
      what,
      where,
      'credentials',
      `${where.server} refused the S3 credentials (${name}). Check the access key and secret in the s3 setting or in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, and the bucket's permissions.`,
      extra,
    );
  }
  if (CHECKSUM_CODES.has(name)) {
    return s3Failure(
      what,
      where,
      'checksum',
      `the server computed a different SHA-256 than the file's (${name}): the file changed on disk, or was damaged on the way.`,
      extra,
    );
  }
  if (status !== undefined && status >= 500) {
    return s3Failure(
      what,
      where,
      'server',
      `${where.server} had an internal error (HTTP ${status}, ${name}); try again later.`,
      extra,
    );
  }
  const detail = scrub(`${name}${e.message && e.message !== name ? `: ${e.message}` : ''}`, secrets).slice(0, 300);
  return s3Failure(what, where, 'other', detail, extra);
}
