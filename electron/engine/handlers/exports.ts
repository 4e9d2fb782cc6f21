/**
 * The exports domain: the run log and the ledger as CSV, streamed from a read-only connection of
 * their own (not the engine's connection), so 100k rows never sit in memory.
 * A file is written at the path given and never replaces one; the headless server streams the
 * same rows as a download instead (exports/export-tables.ts).
 */
import { writeExport } from '../exports/export-tables.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function exportHandlers(ctx: EngineContext): DomainHandlers<'export'> {
  return {
    'export.runlog': async ({ path, ...filter }) => writeExport(ctx.store, 'runlog', path, filter),
    'export.ledger': async ({ path, ...filter }) => writeExport(ctx.store, 'ledger', path, filter),
  };
}
