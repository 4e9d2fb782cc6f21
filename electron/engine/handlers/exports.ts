/**
 * The exports domain: the run log and the ledger as CSV, streamed from a read-only connection of
 * their own (the database file, not the engine's connection), so 100k rows never sit in memory.
 */
import { exportTable } from '../exports/csv-export.js';
import { LEDGER_CSV } from '../exports/ledger.js';
import { RUNLOG_CSV } from '../exports/runlog.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function exportHandlers(ctx: EngineContext): DomainHandlers<'export'> {
  return {
    'export.runlog': async ({ path, ...filter }) => exportTable(ctx.dbFile, path, RUNLOG_CSV, filter),
    'export.ledger': async ({ path, ...filter }) => exportTable(ctx.dbFile, path, LEDGER_CSV, filter),
  };
}
