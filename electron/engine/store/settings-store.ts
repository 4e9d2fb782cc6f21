/**
 * Every statement on `settings`: one JSON value per key (`hooks`, `s3`, the farm's settings and
 * state under `farm.`). A value is validated on
 * every read as well as every write — the row may have been edited by hand, and a hook must never
 * run, nor an upload go out, from text that does not pass its schema.
 */
import type { z } from 'zod';
import { ShotfarmError } from '../../../shared/errors.js';
import { describeIssues } from '../../../shared/shot-list-schema.js';
import type { Db } from './database.js';
import { all, one, run } from './statements.js';

const SQL_GET = 'SELECT value_json FROM settings WHERE key = ?';
const SQL_PUT = `INSERT INTO settings (key, value_json, updated_at, updated_by) VALUES (?, ?, ?, ?)
  ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at, updated_by = excluded.updated_by`;
const SQL_DELETE = 'DELETE FROM settings WHERE key = ?';
const SQL_UNDER =
  'SELECT key, value_json, updated_at, updated_by FROM settings WHERE substr(key, 1, ?) = ? ORDER BY key';

/** What to tell the operator when a stored value does not read back (how to fix it is the caller's to say). */
export interface SettingWords {
  badJson: string;
  invalid: (issues: string) => string;
}

/** The setting, validated; null when it is not set. A stored value that fails its schema is a storage error. */
export function readSetting<T>(db: Db, key: string, schema: z.ZodType<T>, words: SettingWords): T | null {
  const row = one<{ value_json: string }>(db, SQL_GET, key);
  if (!row) return null;
  let value: unknown;
  try {
    value = JSON.parse(row.value_json);
  } catch {
    throw new ShotfarmError('storage', words.badJson);
  }
  const parsed = schema.safeParse(value);
  // describeIssues names paths and rules, never the values, so a secret cannot leak through it.
  if (!parsed.success) throw new ShotfarmError('storage', words.invalid(describeIssues(parsed.error).join('; ')));
  return parsed.data;
}

/**
 * Writes to `settings` through this connection so far: with SQLite's data_version (other
 * connections' commits) it tells a reader whether what it read before is still what is stored
 * (settingsVersion). Counted at the write, inside its transaction: a rollback only costs a re-read.
 */
const writes = new WeakMap<Db, number>();
const wrote = (db: Db): void => void writes.set(db, (writes.get(db) ?? 0) + 1);

/**
 * What the stored settings are "at": equal answers mean no write since, by this connection or any
 * other; null inside a transaction (its own writes may yet roll back: read the rows), and on
 * PostgreSQL, which has no data_version: another engine's write there is seen only by reading.
 */
export function settingsVersion(db: Db): string | null {
  if (db.inTransaction || db.dialect !== 'sqlite') return null;
  const data = one<{ data_version: number }>(db, 'PRAGMA data_version')?.data_version ?? 0;
  return `${data}:${writes.get(db) ?? 0}`;
}

/** Stores an already validated value, and who set it (a person, `local`; null for the engine's own rows). */
export function writeSetting(db: Db, key: string, value: unknown, now: number, by: string | null = null): void {
  wrote(db);
  run(db, SQL_PUT, key, JSON.stringify(value), now, by);
}

export function deleteSetting(db: Db, key: string): void {
  wrote(db);
  run(db, SQL_DELETE, key);
}

/** A stored row as it is (the caller validates `value_json`). */
export interface SettingRow {
  key: string;
  value_json: string;
  updated_at: number;
  updated_by: string | null;
}

/** Every row whose key starts with `prefix`, by key: a handful of rows, read whole. */
export function settingRowsUnder(db: Db, prefix: string): SettingRow[] {
  return all<SettingRow>(db, SQL_UNDER, prefix.length, prefix);
}
