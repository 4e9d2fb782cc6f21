/**
 * The exports by kind, for every host: written to a file (the contract's export.runlog /
 * export.ledger, a desktop save dialog's path) or streamed (the headless server's download).
 */
import type { ExportResult } from '../../../shared/domain.js';
import type { ExportKind } from '../../../shared/exports.js';
import type { ExportFilter } from '../store/export-filter.js';
import type { StoreTarget } from '../store/store-target.js';
import { csvStream, exportTable, type CsvStream } from './csv-export.js';
import { LEDGER_CSV } from './ledger.js';
import { RUNLOG_CSV } from './runlog.js';

/** Rows of `kind` matching `filter` as a CSV stream from a read-only connection of its own. */
export function streamExport(store: StoreTarget, kind: ExportKind, filter: ExportFilter): CsvStream {
  return kind === 'runlog' ? csvStream(store, RUNLOG_CSV, filter) : csvStream(store, LEDGER_CSV, filter);
}

/** The same rows written to `path`, which must not exist yet (an export never replaces a file). */
export function writeExport(
  store: StoreTarget,
  kind: ExportKind,
  path: string,
  filter: ExportFilter,
): Promise<ExportResult> {
  return kind === 'runlog'
    ? exportTable(store, path, RUNLOG_CSV, filter)
    : exportTable(store, path, LEDGER_CSV, filter);
}
