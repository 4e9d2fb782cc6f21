/**
 * The users table: people, their roles and the SHA-256 of their personal token. The token itself
 * is never stored, and no answer built from these rows carries the hash.
 */
import type { PersonView, Role } from '../../../shared/people.js';
import type { Db } from './database.js';
import { all, one, run } from './statements.js';

export interface UserRow {
  id: number;
  name: string;
  role: Role;
  token_sha256: string;
  created_at: number;
  revoked_at: number | null;
}

const COLUMNS = 'id, name, role, token_sha256, created_at, revoked_at';

export function toPersonView(r: UserRow): PersonView {
  return { name: r.name, role: r.role, createdAt: r.created_at, revokedAt: r.revoked_at };
}

/** False when the name is taken (names ignore case: "Mira" and "mira" are one person). */
export function insertUser(db: Db, name: string, role: Role, tokenSha256: string, now: number): boolean {
  return (
    run(
      db,
      'INSERT INTO users (name, role, token_sha256, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING',
      name,
      role,
      tokenSha256,
      now,
    ).changes === 1
  );
}

export function listUsers(db: Db): UserRow[] {
  return all<UserRow>(db, `SELECT ${COLUMNS} FROM users ORDER BY name`);
}

export function userByName(db: Db, name: string): UserRow | undefined {
  return one<UserRow>(db, `SELECT ${COLUMNS} FROM users WHERE name = ?`, name);
}

/** The person a token hash belongs to, revoked or not (the caller decides what revoked means). */
export function userByTokenHash(db: Db, tokenSha256: string): UserRow | undefined {
  return one<UserRow>(db, `SELECT ${COLUMNS} FROM users WHERE token_sha256 = ?`, tokenSha256);
}

/** Whether any person is defined (then every API call over serve needs a personal token). */
export function hasUsers(db: Db): boolean {
  return one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM users')?.n !== 0;
}

export function setUserRole(db: Db, name: string, role: Role): boolean {
  return run(db, 'UPDATE users SET role = ? WHERE name = ?', role, name).changes === 1;
}

export function revokeUser(db: Db, name: string, now: number): boolean {
  return run(db, 'UPDATE users SET revoked_at = COALESCE(revoked_at, ?) WHERE name = ?', now, name).changes === 1;
}

/** A new token hash: the old token stops matching, and a revoked person is active again. */
export function setUserToken(db: Db, name: string, tokenSha256: string): boolean {
  return (
    run(db, 'UPDATE users SET token_sha256 = ?, revoked_at = NULL WHERE name = ?', tokenSha256, name).changes === 1
  );
}
