/**
 * Moving a database (local-only): `db.export`, a consistent copy while the farm may run, and
 * `db.import`, replacing this data folder's store — refused while a farm runs on it, and when it
 * already has jobs unless `replace` is given.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { ShotfarmError } from '../../../shared/errors.js';
import { discardImport, exportDatabase, jobCount, prepareImport, replaceDatabase } from '../store/db-transfer.js';
import type { DomainHandlers, EngineContext } from './context.js';

/**
 * The lock a running farm holds on its data folder (`engine.lock`, an SQLite file kept inside an
 * EXCLUSIVE transaction by the engine that runs the farm): busy means a farm runs there.
 */
function farmRunsOn(dataDir: string): boolean {
  const lock = join(dataDir, 'engine.lock');
  if (!existsSync(lock)) return false;
  const db = new Database(lock, { timeout: 0, fileMustExist: true });
  try {
    db.exec('BEGIN EXCLUSIVE');
    db.exec('ROLLBACK');
    return false;
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
  } finally {
    db.close();
  }
}

function absolute(path: string, what: string): string {
  if (!isAbsolute(path)) throw new ShotfarmError('bad_input', `${what} must be an absolute path; got "${path}".`);
  return path;
}

export function databaseHandlers(ctx: EngineContext): DomainHandlers<'db'> {
  return {
    'db.export': async ({ path }) => {
      const dest = absolute(path, 'The export file');
      return { path: dest, bytes: await exportDatabase(ctx.db, dest) };
    },
    'db.import': async ({ path, replace }) => {
      const source = absolute(path, 'The database file');
      if (source === ctx.dbFile) throw new ShotfarmError('bad_input', `${source} is this data folder's own database.`);
      if (ctx.farm() || farmRunsOn(dirname(ctx.dbFile))) {
        throw new ShotfarmError('conflict', `A farm is running on ${dirname(ctx.dbFile)}; stop it (shotfarm serve, run or the desktop app) before importing a database.`);
      }
      const existing = jobCount(ctx.db);
      if (existing > 0 && !replace) {
        throw new ShotfarmError('conflict', `${ctx.dbFile} already has ${existing} jobs; pass --replace to replace them with ${source} (export-db first to keep a copy).`);
      }
      const prepared = await prepareImport(source, ctx.dbFile, ctx.clock);
      try {
        await replaceDatabase(prepared, ctx.dbFile);
      } catch (err) {
        discardImport(prepared);
        throw new ShotfarmError('storage', `${ctx.dbFile} could not be replaced: ${(err as Error).message}`);
      }
      return { path: source, jobs: prepared.jobs, replaced: existing > 0 };
    },
  };
}
