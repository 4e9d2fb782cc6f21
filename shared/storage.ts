/**
 * The optional S3-compatible copy of every output (SPEC §8), as the contract's `storage.*` methods
 * see it. The setting names the bucket; credentials are best left to the standard AWS environment
 * variables. A view of the setting (`S3SettingsView`) says where the credentials come from, never
 * what they are.
 */
import { z } from 'zod';

const endpointUrl = z
  .string()
  .trim()
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.username === '' && u.password === '';
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL without user or password in it');

export const s3SettingsSchema = z
  .strictObject({
    /** S3-compatible server (MinIO, Ceph, R2…); omit for AWS. */
    endpoint: endpointUrl.optional(),
    region: z.string().trim().min(1).optional(),
    bucket: z
      .string()
      .trim()
      .regex(
        /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
        'must be an S3 bucket name: 3-63 lowercase letters, digits, dots and dashes',
      ),
    /** Prepended to every key; a trailing "/" is added when missing. */
    prefix: z
      .string()
      .trim()
      .refine((p) => !p.startsWith('/'), 'must not start with "/"')
      .optional(),
    /** Path-style URLs (`endpoint/bucket/key`); default on with a custom endpoint, off for AWS. */
    forcePathStyle: z.boolean().optional(),
    accessKeyId: z.string().min(1).optional(),
    secretAccessKey: z.string().min(1).optional(),
  })
  .refine((s) => (s.accessKeyId === undefined) === (s.secretAccessKey === undefined), {
    message:
      'give both accessKeyId and secretAccessKey, or neither (then AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY are used)',
    path: ['accessKeyId'],
  });
export type S3Settings = z.infer<typeof s3SettingsSchema>;

/** The setting as the UI and the CLI may show it: where the credentials come from, never what they are. */
export type S3SettingsView = Omit<S3Settings, 'accessKeyId' | 'secretAccessKey'> & {
  credentials: 'settings' | 'environment';
};

/** What `storage.get` and `storage.set` answer: the S3 copy's settings, or null when it is off. */
export interface StorageView {
  s3: S3SettingsView | null;
}
