/**
 * Moving a farm's database: a consistent copy of the live store (SQLite's online backup, so the
 * engine may keep running), and replacing a data folder's store with such a copy (migrated to this
 * version's schema first, on a temporary copy, so a refused file changes nothing).
 */
import Database from 'better-sqlite3';
import { existsSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ShotfarmError } from '../../../shared/errors.js';
import type { Clock } from '../clock.js';
import { describeFsError, placeDurably, tempPathFor } from '../files/atomic-write.js';
import type { Db } from './database.js';
import { copyFarm } from './farm-copy.js';
import { countByState } from './job-store.js';
import { migrate } from './migrate.js';
import { sqliteSqlDb } from './sql-db.js';

export function jobCount(db: Db): number {
  return Object.values(countByState(db)).reduce((a, b) => a + b, 0);
}

/**
 * Copies the live database to `dest` (which must not exist): backup to a temporary name beside
 * it, fsync, then a hard link to the final name — which fails rather than replace a file that
 * appeared meanwhile — and the temporary name removed.
 */
export async function exportDatabase(db: Db, dest: string, clock: Clock): Promise<number> {
  if (existsSync(dest))
    throw new ShotfarmError(
      'conflict',
      `${dest} exists already; export-db never overwrites a file. Choose a new name.`,
    );
  const tmp = tempPathFor(dest);
  try {
    // SQLite's online backup; a PostgreSQL farm is read through the seam into a new SQLite file.
    if (db.sqlite) await db.sqlite.backup(tmp);
    else copyIntoSqliteFile(db, tmp, clock);
    await placeDurably(tmp, dest, false);
    return statSync(dest).size;
  } catch (err) {
    if (err instanceof ShotfarmError && err.code === 'conflict')
      throw new ShotfarmError('conflict', `${dest} exists already; export-db never overwrites a file.`);
    if (err instanceof ShotfarmError) throw err;
    throw describeFsError(err, `the database copy ${dest}`);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * A farm on another store (PostgreSQL) as a SQLite file: this version's schema, then every table
 * copied from one snapshot of the source (farm-copy.ts) in one transaction, counts compared.
 */
function copyIntoSqliteFile(src: Db, file: string, clock: Clock): void {
  const conn = new Database(file);
  const dst = sqliteSqlDb(conn);
  try {
    conn.pragma('foreign_keys = ON');
    migrate(dst, clock);
    src.readTransaction(() => dst.transaction(() => copyFarm(src, dst)));
  } finally {
    dst.close();
  }
}

/** Opens a file as SQLite, or says in words that it is not a Shotfarm database. */
function openCandidate(file: string): Database.Database {
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { fileMustExist: true });
    db.pragma('schema_version'); // reads the header: a file that is not SQLite fails here
    return db;
  } catch (err) {
    db?.close();
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_NOTADB')
      throw new ShotfarmError('bad_input', `${file} is not a SQLite database, so not a Shotfarm database.`);
    throw new ShotfarmError('bad_input', `${file} cannot be opened as a Shotfarm database: ${(err as Error).message}`);
  }
}

/**
 * A prepared import: the file copied and migrated to this version's schema, ready to replace the
 * store. `jobs` is how many jobs it holds.
 */
export interface PreparedImport {
  tmp: string;
  jobs: number;
}

/** Copies `source` beside `targetFile`, checks it is a Shotfarm database of a known schema, and migrates the copy. */
export async function prepareImport(source: string, targetFile: string, clock: Clock): Promise<PreparedImport> {
  if (!existsSync(source)) throw new ShotfarmError('not_found', `${source} does not exist.`);
  const tmp = join(dirname(targetFile), `.import-${process.pid}-${clock.now().toString(36)}.sqlite`);
  const src = openCandidate(source);
  try {
    await src.backup(tmp);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new ShotfarmError('bad_input', `${source} could not be read as a database: ${(err as Error).message}`);
  } finally {
    src.close();
  }
  // The imported file is a SQLite store by nature: its copy is opened as one, behind the seam.
  const copy = sqliteSqlDb(new Database(tmp));
  try {
    const hasMigrations = copy.all("SELECT name FROM pragma_table_info('schema_migrations')");
    if (hasMigrations.length === 0)
      throw new ShotfarmError(
        'bad_input',
        `${source} is a SQLite database but not a Shotfarm one (it has no schema_migrations table).`,
      );
    // Refuses a newer Shotfarm's schema or an edited migration, in words; then brings an older one up to date.
    migrate(copy, clock);
    return { tmp, jobs: jobCount(copy) };
  } catch (err) {
    copy.close();
    rmSync(tmp, { force: true });
    if (err instanceof ShotfarmError)
      throw new ShotfarmError(err.code === 'storage' ? 'bad_input' : err.code, `${source}: ${err.message}`);
    throw new ShotfarmError('bad_input', `${source} is not a Shotfarm database: ${(err as Error).message}`);
  } finally {
    copy.close();
  }
}

/**
 * Replaces the store's content with the prepared copy, through SQLite's backup into the open
 * database (its other connections see the new content at their next read), then removes the copy.
 */
export async function replaceDatabase(prepared: PreparedImport, targetFile: string): Promise<void> {
  const copy = new Database(prepared.tmp, { readonly: true });
  try {
    await copy.backup(targetFile);
  } finally {
    copy.close();
    rmSync(prepared.tmp, { force: true });
  }
}

/** Drops a prepared copy that will not be used. */
export function discardImport(prepared: PreparedImport): void {
  rmSync(prepared.tmp, { force: true });
}
