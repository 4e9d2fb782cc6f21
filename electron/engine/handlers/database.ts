/**
 * Moving a database (local-only): `db.export`, a consistent copy while the farm may run, and
 * `db.import`, replacing this data folder's store — refused while a farm runs on it, and when it
 * already has jobs unless `replace` is given.
 */
import { dirname, isAbsolute } from 'node:path';
import { ShotfarmError } from '../../../shared/errors.js';
import { engineLockHolder } from '../lock/engine-lock.js';
import { claimHolder } from '../lock/farm-claim.js';
import { holderWords } from '../lock/lock-record.js';
import { discardImport, exportDatabase, jobCount, prepareImport, replaceDatabase } from '../store/db-transfer.js';
import type { DomainHandlers, EngineContext } from './context.js';

/**
 * Whether a farm runs on the data folder: the engine that runs it holds the folder's lock
 * (lock/engine-lock.ts — this process's own farm too); the words name who holds it, when its record says.
 */
function farmRunning(ctx: EngineContext, dataDir: string): string | null {
  const h = engineLockHolder(dataDir);
  // The claim in the store too: a deleted lock file hides a running engine from the lock alone.
  const claimed = h.held ? null : claimHolder(ctx.db, dataDir, ctx.dbFile);
  if (!h.held && !claimed) return null;
  const record = h.held ? h.record : claimed;
  return record ? ` (${holderWords(record)})` : '';
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
      const running = ctx.farm() ? '' : farmRunning(ctx, dirname(ctx.dbFile));
      if (running !== null) {
        throw new ShotfarmError(
          'conflict',
          `A farm is running on ${dirname(ctx.dbFile)}${running}; stop it (shotfarm serve, run or the desktop app) before importing a database.`,
        );
      }
      const existing = jobCount(ctx.db);
      if (existing > 0 && !replace) {
        throw new ShotfarmError(
          'conflict',
          `${ctx.dbFile} already has ${existing} jobs; pass --replace to replace them with ${source} (export-db first to keep a copy).`,
        );
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
