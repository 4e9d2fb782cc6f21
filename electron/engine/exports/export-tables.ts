/**
 * The exports by kind, for every host: written to a file (the contract's export.runlog /
 * export.ledger, a desktop save dialog's path) or streamed (the headless server's download).
 */
import type { ExportResult } from '../../../shared/domain.js';
import type { ExportKind } from '../../../shared/exports.js';
import type { ExportFilter } from '../store/export-filter.js';
import { csvStream, exportTable, type CsvStream } from './csv-export.js';
import { LEDGER_CSV } from './ledger.js';
import { RUNLOG_CSV } from './runlog.js';

/** Rows of `kind` matching `filter` as a CSV stream from a read-only connection of its own. */
export function streamExport(dbFile: string, kind: ExportKind, filter: ExportFilter): CsvStream {
  return kind === 'runlog' ? csvStream(dbFile, RUNLOG_CSV, filter) : csvStream(dbFile, LEDGER_CSV, filter);
}

/** The same rows written to `path`, which must not exist yet (an export never replaces a file). */
export function writeExport(
  dbFile: string,
  kind: ExportKind,
  path: string,
  filter: ExportFilter,
): Promise<ExportResult> {
  return kind === 'runlog'
    ? exportTable(dbFile, path, RUNLOG_CSV, filter)
    : exportTable(dbFile, path, LEDGER_CSV, filter);
}
