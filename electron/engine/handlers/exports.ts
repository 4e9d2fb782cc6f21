/**
 * The exports domain: the run log and the ledger as CSV, streamed from a read-only connection of
 * their own (the database file, not the engine's connection), so 100k rows never sit in memory.
 */
import { exportLedger } from '../exports/ledger.js';
import { exportRunlog } from '../exports/runlog.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function exportHandlers(ctx: EngineContext): DomainHandlers<'export'> {
  return {
    'export.runlog': async ({ path, ...filter }) => exportRunlog(ctx.dbFile, path, filter),
    'export.ledger': async ({ path, ...filter }) => exportLedger(ctx.dbFile, path, filter),
  };
}
