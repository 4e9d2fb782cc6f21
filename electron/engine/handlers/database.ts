/**
 * Moving a database (local-only): `db.export`, a consistent copy while the farm may run, and
 * `db.import`, replacing this data folder's store — refused while a farm runs on it, and when it
 * already has jobs unless `replace` is given.
 */
import { dirname, isAbsolute } from 'node:path';
import { ShotfarmError } from '../../../shared/errors.js';
import { DatabaseLock } from '../lock/database-lock.js';
import { EngineLock, engineLockHolder } from '../lock/engine-lock.js';
import { claimHolder } from '../lock/farm-claim.js';
import { holderWords, type LockRecord } from '../lock/lock-record.js';
import { discardImport, exportDatabase, jobCount, prepareImport, replaceDatabase } from '../store/db-transfer.js';
import { moveFarmToPostgres } from '../store/postgres/farm-move.js';
import { redactedUrl } from '../store/store-target.js';
import type { DomainHandlers, EngineContext } from './context.js';

/**
 * Whether a farm runs on the data folder: the engine that runs it holds the folder's lock
 * (lock/engine-lock.ts — this process's own farm too); the words name who holds it, when its record says.
 */
function farmRunning(ctx: EngineContext, dataDir: string): string | null {
  return farmHolder(ctx, dataDir)?.words ?? null;
}

/** Who runs the data folder's farm (the lock's record, else the store's claim), or null when no engine does. */
function farmHolder(ctx: EngineContext, dataDir: string): { words: string; record: LockRecord | null } | null {
  const h = engineLockHolder(dataDir);
  // The claim in the store too: a deleted lock file hides a running engine from the lock alone.
  const claimed = h.held ? null : claimHolder(ctx.db, dataDir, ctx.dbFile);
  if (!h.held && !claimed) return null;
  const record = h.held ? h.record : claimed;
  return { words: record ? ` (${holderWords(record)})` : '', record };
}

function absolute(path: string, what: string): string {
  if (!isAbsolute(path)) throw new ShotfarmError('bad_input', `${what} must be an absolute path; got "${path}".`);
  return path;
}

/**
 * The data folder's farm taken for a move (its lock, as `run` and `serve` take it), or a refusal
 * naming who runs it — an engine in this process, the lock's holder, or a live claim in the store
 * (a deleted lock file hides an engine from the lock alone). Exit 10 through `engineLock`.
 */
function holdFarmForMove(ctx: EngineContext, dataDir: string): EngineLock {
  const refuse = (words: string, record: LockRecord | null): ShotfarmError =>
    new ShotfarmError(
      'conflict',
      `A farm is running on ${dataDir}${words}; stop it (shotfarm serve, run or the desktop app) before moving it to PostgreSQL, so no change is left behind.`,
      { details: { engineLock: record ?? { running: true } } },
    );
  if (ctx.farm()) throw refuse(' (this process)', null);
  let lock: EngineLock;
  try {
    lock = EngineLock.acquire(dataDir, 'migrate', ctx.clock);
  } catch (err) {
    if (err instanceof ShotfarmError && err.details && 'engineLock' in err.details) {
      const held = engineLockHolder(dataDir);
      const record = held.held ? held.record : null;
      throw refuse(record ? ` (${holderWords(record)})` : '', record);
    }
    throw err;
  }
  const claimed = claimHolder(ctx.db, dataDir, ctx.dbFile);
  if (claimed) {
    lock.release();
    throw refuse(` (${holderWords(claimed)})`, claimed);
  }
  return lock;
}

export function databaseHandlers(ctx: EngineContext): DomainHandlers<'db'> {
  return {
    'db.export': async ({ path }) => {
      const dest = absolute(path, 'The export file');
      return { path: dest, bytes: await exportDatabase(ctx.db, dest, ctx.clock) };
    },
    'db.import': async ({ path, replace }) => {
      const source = absolute(path, 'The database file');
      // It replaces the data folder's SQLite file, which a PostgreSQL farm does not use.
      if (ctx.db.postgres) {
        throw new ShotfarmError(
          'bad_input',
          "This farm's store is a PostgreSQL database: import-db replaces a SQLite store. Restore a PostgreSQL farm with pg_restore.",
        );
      }
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
    'db.migrate': async ({ to, replace }) => {
      if (ctx.db.dialect !== 'sqlite')
        throw new ShotfarmError(
          'bad_input',
          "This command opened a PostgreSQL store (--database or SHOTFARM_DATABASE_URL): db migrate copies the data folder's SQLite farm into PostgreSQL. Run it without them.",
        );
      const dataDir = dirname(ctx.dbFile);
      // Rows written after the copy would be left behind: refused while an engine runs the farm, and
      // the farm's lock held for the move, so none starts meanwhile.
      const lock = holdFarmForMove(ctx, dataDir);
      let moved: ReturnType<typeof moveFarmToPostgres>;
      try {
        moved = moveFarmToPostgres(ctx.db, to, {
          replace: replace === true,
          clock: ctx.clock,
          // An engine running a farm in the destination database is refused too (exit 10), and none starts during the move.
          holdDestination: (dst) => DatabaseLock.take(dst, redactedUrl(to), dataDir),
        });
      } finally {
        lock.release();
      }
      return { tables: moved.tables, replaced: moved.replaced, ms: moved.ms };
    },
  };
}
