/**
 * Streams rows from a query into a CSV file without holding them in memory: a read-only
 * connection of its own (WAL lets it read while the engine writes), a generator pulled by
 * csv-stringify with backpressure, and an atomic write. Cells are made safe for spreadsheets.
 */
import Database from 'better-sqlite3';
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { ExportResult } from '../../../shared/domain.js';
import { writeStreamAtomically } from '../files/atomic-write.js';

/** A text cell starting like a formula is prefixed so a spreadsheet shows it instead of running it. */
export function spreadsheetSafe(value: unknown): string | number {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return value;
  const s = String(value);
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}

export function isoTime(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '' : new Date(ms).toISOString();
}

export interface CsvExportSpec<Row> {
  dbFile: string;
  sql: string;
  params: Record<string, unknown>;
  header: readonly string[];
  toCells: (row: Row) => unknown[];
  path: string;
}

export async function exportCsv<Row>(spec: CsvExportSpec<Row>): Promise<ExportResult> {
  const db = new Database(spec.dbFile, { readonly: true, fileMustExist: true });
  let count = 0;
  try {
    const iter = db.prepare(spec.sql).iterate(spec.params) as IterableIterator<Row>;
    function* cells(): Generator<(string | number)[]> {
      yield spec.header.map((h) => h);
      for (const row of iter) {
        count++;
        yield spec.toCells(row).map(spreadsheetSafe);
      }
    }
    // BOM so spreadsheet apps read UTF-8 (accented shot names, CJK descriptions) correctly.
    const csv = Readable.from(cells()).pipe(stringify({ bom: true, record_delimiter: 'windows' }));
    const bytes = await writeStreamAtomically(spec.path, csv, `the export ${spec.path}`);
    return { path: spec.path, rows: count, bytes };
  } finally {
    db.close();
  }
}
