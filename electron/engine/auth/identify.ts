/**
 * A presented token → the person it belongs to. Read from the store at every call (no cache), so a
 * revocation or a new token takes effect on the very next request.
 */
import type { Caller } from '../../../shared/people.js';
import type { Db } from '../store/database.js';
import { hasUsers, userByTokenHash } from '../store/user-store.js';
import { sameHash, tokenHash } from './tokens.js';

export type Identity = { ok: true; caller: Caller } | { ok: false; why: 'missing' | 'unknown' | 'revoked' };

export function identify(db: Db, token: string | null): Identity {
  if (!token) return { ok: false, why: 'missing' };
  const hash = tokenHash(token);
  const row = userByTokenHash(db, hash);
  // The lookup is by the hash (an attacker cannot steer it byte by byte); the compare is constant-time anyway.
  if (!row || !sameHash(row.token_sha256, hash)) return { ok: false, why: 'unknown' };
  if (row.revoked_at !== null) return { ok: false, why: 'revoked' };
  return { ok: true, caller: { kind: 'person', name: row.name, role: row.role } };
}

/** Whether people are defined: then the server asks every caller for a personal token. */
export function peopleDefined(db: Db): boolean {
  return hasUsers(db);
}
