/**
 * Where finished outputs are uploaded (SPEC §8: optional S3-compatible storage). The `s3` setting
 * names the bucket; credentials come from that setting or from the standard AWS environment
 * variables. Credentials never leave this module except into the S3 client: they are not logged,
 * not put in error messages, and `describeS3Settings` shows only where they come from.
 */
import { ShotfarmError } from '../../../shared/errors.js';
import { describeIssues } from '../../../shared/shot-list-schema.js';
import { s3SettingsSchema, type S3Settings, type S3SettingsView } from '../../../shared/storage.js';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { deleteSetting, readSetting, writeSetting } from '../store/settings-store.js';
import type { EngineEnv } from '../engine-env.js';

export const S3_SETTING = 's3';

export type { S3Settings };

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Everything the uploader needs, settings and environment merged. */
export interface S3Config {
  endpoint: string | undefined;
  region: string;
  bucket: string;
  /** '' or ending in '/'. */
  prefix: string;
  forcePathStyle: boolean;
  credentials: S3Credentials;
  credentialsFrom: 'settings' | 'environment';
}

/** The `s3` setting, or null when uploads are off. */
export function getS3Settings(db: Db): S3Settings | null {
  return readSetting(db, S3_SETTING, s3SettingsSchema, {
    badJson: 'The s3 setting is not valid JSON; set it again.',
    invalid: (issues) => `The s3 setting is invalid (${issues}); set it again.`,
  });
}

/** Sets (or, with null, removes) the `s3` setting. */
export function setS3Settings(db: Db, clock: Clock, value: unknown): S3Settings | null {
  if (value === null) {
    deleteSetting(db, S3_SETTING);
    return null;
  }
  const parsed = s3SettingsSchema.safeParse(value);
  if (!parsed.success)
    throw new ShotfarmError('bad_input', `Invalid s3 setting: ${describeIssues(parsed.error).join('; ')}`);
  writeSetting(db, S3_SETTING, parsed.data, clock.now());
  return parsed.data;
}

function normalisePrefix(prefix: string | undefined): string {
  const p = (prefix ?? '').trim();
  return p === '' || p.endsWith('/') ? p : `${p}/`;
}

/** Merges the setting with the standard AWS environment variables (the setting wins). */
export function resolveS3Config(s: S3Settings, env: EngineEnv): S3Config {
  const endpoint = s.endpoint ?? env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL ?? undefined;
  let credentials: S3Credentials;
  let credentialsFrom: S3Config['credentialsFrom'];
  if (s.accessKeyId !== undefined && s.secretAccessKey !== undefined) {
    credentials = { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey };
    credentialsFrom = 'settings';
  } else if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    credentials = { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY };
    if (env.AWS_SESSION_TOKEN) credentials.sessionToken = env.AWS_SESSION_TOKEN;
    credentialsFrom = 'environment';
  } else {
    // No silent fallback to instance metadata or profiles: on a studio LAN that means a slow
    // timeout per upload and a vague error, instead of this one.
    throw new ShotfarmError(
      'unavailable',
      'No S3 credentials: set accessKeyId and secretAccessKey in the s3 setting, or the AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY environment variables.',
      { details: { reason: 'credentials' } },
    );
  }
  return {
    endpoint,
    region: s.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    bucket: s.bucket,
    prefix: normalisePrefix(s.prefix),
    forcePathStyle: s.forcePathStyle ?? endpoint !== undefined,
    credentials,
    credentialsFrom,
  };
}

/** The setting as the UI and CLI may show it: where credentials come from, never what they are. */
export function describeS3Settings(s: S3Settings): S3SettingsView {
  const { accessKeyId, secretAccessKey: _secret, ...rest } = s;
  return { ...rest, credentials: accessKeyId !== undefined ? 'settings' : 'environment' };
}
