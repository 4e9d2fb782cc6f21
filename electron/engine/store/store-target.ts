/**
 * Which store a farm uses: the SQLite file in its data folder (the default, and all the desktop app
 * ever uses), or a PostgreSQL database named by a URL (`--database URL` or `SHOTFARM_DATABASE_URL`,
 * which the hosts read and pass in: the engine reads no environment). Opening either gives the
 * same seam (sql-db.ts) with the migration chain applied.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { ShotfarmError } from '../../../shared/errors.js';
import type { Clock } from '../clock.js';
import { DB_FILE_NAME, type DatabaseOptions, type Db, openDatabase } from './database.js';
import { migrate } from './migrate.js';
import { openPostgresDb, type PostgresDbOptions } from './postgres/postgres-db.js';
import { PostgresStoreError, postgresFault } from './postgres/postgres-error.js';
import { sqliteSqlDb } from './sql-db.js';
import { one } from './statements.js';

export type StoreTarget = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

/** The data folder's SQLite file, or the PostgreSQL database at `databaseUrl` when one is given. */
export function storeTarget(dataDir: string, databaseUrl?: string | null): StoreTarget {
  if (databaseUrl === undefined || databaseUrl === null || databaseUrl.trim() === '') {
    return { kind: 'sqlite', file: join(dataDir, DB_FILE_NAME) };
  }
  return { kind: 'postgres', url: checkedUrl(databaseUrl.trim()) };
}

function checkedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badUrl(url, 'it is not a URL');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw badUrl(url, `it starts with ${parsed.protocol}// rather than postgres://`);
  }
  if (parsed.hostname === '') throw badUrl(url, 'it names no host');
  return url;
}

function badUrl(url: string, why: string): ShotfarmError {
  return new ShotfarmError(
    'bad_input',
    `The database URL ${redactedUrl(url)} cannot be used: ${why}. ` +
      'Give a PostgreSQL URL such as postgres://shotfarm@db.studio.lan:5432/shotfarm (--database URL or SHOTFARM_DATABASE_URL), ' +
      "or neither for the data folder's SQLite file.",
  );
}

/** The URL without its password (for messages and logs: a URL may carry one). */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}

/** How the store is named in messages: the file's path, or the database's URL without a password. */
export function storeLabel(t: StoreTarget): string {
  return t.kind === 'sqlite' ? t.file : redactedUrl(t.url);
}

/** Opens the store and brings its schema up to date (refusing a newer Shotfarm's, as on SQLite). */
export function openStore(
  t: StoreTarget,
  clock: Clock,
  opts: DatabaseOptions & { postgres?: PostgresDbOptions } = {},
): Db {
  if (t.kind === 'sqlite') return openDatabase(t.file, clock, opts);
  let db: Db;
  try {
    db = openPostgresDb(t.url, opts.postgres);
  } catch (err) {
    throw openFailure(t, err);
  }
  try {
    migrate(db, clock);
  } catch (err) {
    db.close();
    if (err instanceof ShotfarmError) throw err;
    throw openFailure(t, err);
  }
  return db;
}

/**
 * A reading connection of its own (the CSV exports: 100k rows streamed while the engine works on).
 * SQLite: the file read-only (its WAL lets it read while the engine writes). PostgreSQL: a
 * connection of its own, so the export's cursor never holds the engine's connection in a transaction.
 */
export function openReader(t: StoreTarget): Db {
  if (t.kind === 'sqlite') return sqliteSqlDb(new Database(t.file, { readonly: true, fileMustExist: true }));
  try {
    return openPostgresDb(t.url);
  } catch (err) {
    throw openFailure(t, err);
  }
}

/** Why a PostgreSQL store could not be opened, in words a person can act on. */
function openFailure(t: StoreTarget, err: unknown): ShotfarmError {
  const where = storeLabel(t);
  if (err instanceof PostgresStoreError) {
    const fault = postgresFault(err);
    if (fault) {
      return new ShotfarmError('storage', `Cannot open the PostgreSQL store ${where}: ${fault.words}.`, {
        details: { database: where, sqlstate: err.code },
      });
    }
    // A refused password (28P01), a missing database (3D000), no permission (42501): not a wait.
    return new ShotfarmError(
      'storage',
      `Cannot open the PostgreSQL store ${where}: ${err.message} (${err.code}). Check the URL, the role and its password (PGPASSWORD or ~/.pgpass), and that the database exists.`,
      { details: { database: where, sqlstate: err.code } },
    );
  }
  return new ShotfarmError('storage', `Cannot open the PostgreSQL store ${where}: ${(err as Error).message}`, {
    details: { database: where },
  });
}

/** A PostgreSQL database's identity for the farm's claim: its name and oid (`pg:shotfarm#16384`). */
export function postgresIdentity(db: Db): string {
  const r = one<{ name: string; oid: number }>(
    db,
    'SELECT datname AS name, oid::bigint AS oid FROM pg_database WHERE datname = current_database()',
  );
  return `pg:${r?.name ?? '?'}#${r?.oid ?? 0}`;
}
