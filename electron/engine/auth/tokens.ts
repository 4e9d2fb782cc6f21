/**
 * Personal access tokens: 32 random bytes shown once, stored as their SHA-256. A token carries its
 * full strength, so a fast hash is enough (no password to guess); comparing the hashes in constant
 * time keeps a byte-by-byte timing from telling how much of a guess was right.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Where token bytes come from (injected so tests can make known tokens). */
export type TokenBytes = (n: number) => Buffer;
export const systemTokenBytes: TokenBytes = (n) => randomBytes(n);

/** The prefix says what the string is when it turns up in a shell history or a support chat. */
const PREFIX = 'sft_';

export function newToken(bytes: TokenBytes = systemTokenBytes): string {
  return `${PREFIX}${bytes(32).toString('base64url')}`;
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Two SHA-256 hex digests compared in constant time. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === 32 && y.length === 32 && timingSafeEqual(x, y);
}
