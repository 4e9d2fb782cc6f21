/**
 * `shotfarm db migrate --to URL`: a SQLite farm moved into a PostgreSQL database. The destination
 * is checked first (reachable, accepted credentials, only Shotfarm's tables, not a newer Shotfarm's
 * schema, no rows unless `replace`); then ONE transaction on it drops a replaced farm's tables,
 * applies the migration chain in PostgreSQL's dialect, copies every table (farm-copy.ts), renumbers
 * the identity columns and compares each table's count with the source's. Anything that fails rolls
 * it all back: the destination is as it was.
 */
import { ShotfarmError } from '../../../../shared/errors.js';
import type { Clock } from '../../clock.js';
import { copyFarm, countRows, schemaTables, type TableCount } from '../farm-copy.js';
import { migrate } from '../migrate.js';
import { MIGRATIONS } from '../migrations/index.js';
import type { SqlDb } from '../sql-db.js';
import { openPostgresDb } from './postgres-db.js';
import { PostgresStoreError } from './postgres-error.js';
import { postgresMigrationSql } from './schema-dialect.js';
import { redactedUrl } from '../store-target.js';

/** A PostgreSQL URL, or a `bad_input` saying what one looks like. */
export function checkPostgresUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ShotfarmError(
      'bad_input',
      `"${redactedUrl(url)}" is not a URL. Give the PostgreSQL database as postgres://USER@HOST:5432/DATABASE.`,
    );
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new ShotfarmError(
      'bad_input',
      `${redactedUrl(url)} is not a PostgreSQL URL (it starts with ${u.protocol}//). Give postgres://USER@HOST:5432/DATABASE; to copy the farm to a SQLite file, use export-db.`,
    );
  }
  // The host may be given as ?host= (a Unix socket's folder: postgres:///shotfarm?host=/var/run/postgresql).
  if (!(u.hostname || u.searchParams.get('host')) || u.pathname.length <= 1) {
    throw new ShotfarmError(
      'bad_input',
      `${redactedUrl(url)} names no host or no database. Give postgres://USER@HOST:5432/DATABASE.`,
    );
  }
  return u;
}

/** A failure to connect, in words a person can act on (and the CLI's exit code through its kind). */
export function connectFailure(err: unknown, url: URL): ShotfarmError {
  const where = `${url.hostname || url.searchParams.get('host')}:${url.port || '5432'}`;
  const db = decodeURIComponent(url.pathname.slice(1));
  const user = decodeURIComponent(url.username) || 'the default user';
  if (!(err instanceof PostgresStoreError))
    return new ShotfarmError('storage', `PostgreSQL at ${where} could not be used: ${(err as Error).message}`);
  switch (err.code) {
    case '28P01':
      return new ShotfarmError(
        'bad_input',
        `PostgreSQL at ${where} refused the password of ${user}. Check the password (PGPASSWORD, ~/.pgpass or the URL) and that the role can log in.`,
      );
    case '28000':
      return new ShotfarmError(
        'bad_input',
        `PostgreSQL at ${where} did not let ${user} in (${err.message}). Check the user name and the server's pg_hba.conf.`,
      );
    case '3D000':
      return new ShotfarmError(
        'bad_input',
        `The database "${db}" does not exist on ${where}. Create it first (docs/postgresql.md: CREATE DATABASE … OWNER …).`,
      );
    default:
      if (err.connectionLost) {
        return new ShotfarmError(
          'storage',
          `Cannot reach PostgreSQL at ${where} (${err.message}). Check the host and port in the URL, that the server runs, and that it lets this machine in.`,
        );
      }
      return new ShotfarmError(
        'storage',
        `PostgreSQL at ${where} refused the connection: ${err.message} (${err.code}).`,
      );
  }
}

/**
 * Functions the PostgreSQL dialect creates (trigger bodies, SQLite's scalar functions) by their
 * signatures, `instr(text, text)`: dropped with a replaced farm's tables, as the chain makes them again.
 */
export function dialectFunctions(): string[] {
  return MIGRATIONS.flatMap((m) =>
    [...postgresMigrationSql(m).matchAll(/CREATE FUNCTION (\w+)\(([^)]*)\)/g)].map((x) => {
      const types = (x[2] as string)
        .split(',')
        .map((a) => a.trim().split(/\s+/).slice(1).join(' '))
        .filter((t) => t !== '');
      return `${x[1]}(${types.join(', ')})`;
    }),
  );
}

export interface DestinationSurvey {
  /** Shotfarm's tables already there. */
  present: string[];
  /** Rows in them (schema_migrations aside). */
  rows: number;
  jobs: number;
}

/**
 * What the destination holds, refusing a database with other applications' tables (never dropped,
 * even with --replace) or a newer Shotfarm's schema.
 */
export function surveyDestination(dst: SqlDb, shown: string): DestinationSurvey {
  const ours = new Set([...schemaTables(), 'schema_migrations']);
  const tables = dst
    .all<{ name: string }>(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name',
    )
    .map((r) => r.name);
  const foreign = tables.filter((t) => !ours.has(t));
  if (foreign.length > 0) {
    const list = foreign.slice(0, 8).join(', ') + (foreign.length > 8 ? `, … (${foreign.length} in all)` : '');
    throw new ShotfarmError(
      'conflict',
      `${shown} holds tables that are not Shotfarm's (${list}): Shotfarm never replaces another application's data. Create an empty database for the farm (docs/postgresql.md).`,
    );
  }
  if (tables.includes('schema_migrations')) {
    const known = new Set(MIGRATIONS.map((m) => m.id));
    const unknown = dst
      .all<{ id: number; name: string }>('SELECT id, name FROM schema_migrations ORDER BY id')
      .filter((r) => !known.has(r.id));
    if (unknown.length > 0) {
      throw new ShotfarmError(
        'storage',
        `${shown} holds a farm written by a newer Shotfarm (migration ${unknown[0]?.name} is unknown to this version). Update Shotfarm, or choose another database.`,
      );
    }
  }
  const present = tables.filter((t) => t !== 'schema_migrations');
  let rows = 0;
  for (const t of present) rows += countRows(dst, t);
  return { present, rows, jobs: present.includes('jobs') ? countRows(dst, 'jobs') : 0 };
}

export interface MoveOptions {
  replace: boolean;
  clock: Clock;
  /** Rows per INSERT (tests: small, to cross batch edges). */
  batchRows?: number;
  /**
   * Takes the destination farm's one-engine lock for the move (lock/database-lock.ts), refusing
   * while an engine runs a farm there; released after.
   */
  holdDestination?: (dst: SqlDb) => { release(): void } | null;
}

export interface MoveResult {
  tables: TableCount[];
  /** The destination had a farm's rows, replaced. */
  replaced: boolean;
  ms: number;
}

/** Moves the farm in `src` (this version's schema) into the PostgreSQL database at `url`. */
export function moveFarmToPostgres(src: SqlDb, url: string, o: MoveOptions): MoveResult {
  const parsed = checkPostgresUrl(url);
  const shown = redactedUrl(url);
  const started = Date.now();
  let dst: SqlDb;
  try {
    dst = openPostgresDb(url, { connectTimeoutMs: 10_000, callTimeoutMs: 120_000 });
  } catch (err) {
    throw connectFailure(err, parsed);
  }
  let held: { release(): void } | null = null;
  try {
    held = o.holdDestination?.(dst) ?? null;
    const survey = surveyDestination(dst, shown);
    if (survey.rows > 0 && !o.replace) {
      throw new ShotfarmError(
        'conflict',
        `${shown} already holds a farm (${survey.jobs} jobs, ${survey.rows} rows in all); pass --replace to replace it with this one.`,
      );
    }
    const tables = src.readTransaction(() =>
      dst.transaction(() => {
        // A replaced (or schema-only) farm goes first; on an empty database this drops nothing.
        dropFarm(dst, survey.present);
        migrate(dst, o.clock);
        return copyFarm(src, dst, { batchRows: o.batchRows });
      }),
    );
    return { tables, replaced: survey.rows > 0, ms: Date.now() - started };
  } catch (err) {
    if (err instanceof ShotfarmError) throw err;
    if (err instanceof PostgresStoreError) {
      const why = err.connectionLost
        ? 'the connection was lost during the move'
        : 'the server refused a statement of the move';
      throw new ShotfarmError(
        'storage',
        `${shown}: ${why} (${err.message}, ${err.code}). It was rolled back: nothing was written. Try again.`,
      );
    }
    throw err;
  } finally {
    held?.release();
    dst.close();
  }
}

/** A replaced farm's tables, schema history and trigger functions (inside the move's transaction). */
function dropFarm(dst: SqlDb, present: readonly string[]): void {
  const tables = [...present, 'schema_migrations'].map((t) => `"${t}"`).join(', ');
  dst.exec(`DROP TABLE IF EXISTS ${tables} CASCADE`);
  for (const f of dialectFunctions()) dst.exec(`DROP FUNCTION IF EXISTS ${f} CASCADE`);
}
