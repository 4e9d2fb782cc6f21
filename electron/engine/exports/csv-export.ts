/**
 * Streams rows from a query into a CSV file without holding them in memory: a read-only
 * connection of its own (WAL lets it read while the engine writes), a generator of 64 KiB chunks
 * pulled by the file stream with backpressure, and an atomic write. Cells are made safe for
 * spreadsheets. (csv-stringify's per-record stream cost more than the query for 100k rows.)
 */
import Database from 'better-sqlite3';
import { Readable } from 'node:stream';
import type { ExportResult } from '../../../shared/domain.js';
import { writeStreamAtomically } from '../files/atomic-write.js';
import type { ExportFilter } from '../store/export-filter.js';
import { each } from '../store/statements.js';

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

/** One CSV export: its columns, its query (the store's, from the filters) and how a row becomes cells. */
export interface CsvTable<Row> {
  header: readonly string[];
  query: (filter: ExportFilter) => { sql: string; params: Record<string, unknown> };
  toCells: (row: Row) => unknown[];
}

/** Writes `table`'s rows matching `filter` to `path`, from a read-only connection to `dbFile`. */
export function exportTable<Row>(dbFile: string, path: string, table: CsvTable<Row>, filter: ExportFilter): Promise<ExportResult> {
  return exportCsv<Row>({ dbFile, path, header: table.header, toCells: table.toCells, ...table.query(filter) });
}

export interface CsvExportSpec<Row> {
  dbFile: string;
  sql: string;
  params: Record<string, unknown>;
  header: readonly string[];
  toCells: (row: Row) => unknown[];
  path: string;
}

/** One CSV field as RFC 4180 writes it: quoted only when it holds a quote, comma or line break. */
function csvField(cell: string | number): string {
  if (typeof cell === 'number') return String(cell);
  return /[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}

/** Cells → one CRLF-terminated record (the line ending spreadsheet apps on Windows expect). */
export function csvRecord(cells: readonly unknown[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) line += (i ? ',' : '') + csvField(spreadsheetSafe(cells[i]));
  return `${line}\r\n`;
}

/** Records are handed to the file in chunks of about this many characters (not one per row). */
const CHUNK_CHARS = 64 * 1024;

export async function exportCsv<Row>(spec: CsvExportSpec<Row>): Promise<ExportResult> {
  const db = new Database(spec.dbFile, { readonly: true, fileMustExist: true });
  let count = 0;
  try {
    const iter = each<Row>(db, spec.sql, spec.params);
    // Pulled by the file stream with backpressure: at most one chunk is built ahead of the disk.
    function* chunks(): Generator<string> {
      // BOM so spreadsheet apps read UTF-8 (accented shot names, CJK descriptions) correctly.
      let chunk = `\ufeff${csvRecord(spec.header)}`;
      for (const row of iter) {
        count++;
        chunk += csvRecord(spec.toCells(row));
        if (chunk.length >= CHUNK_CHARS) {
          yield chunk;
          chunk = '';
        }
      }
      if (chunk) yield chunk;
    }
    const bytes = await writeStreamAtomically(spec.path, Readable.from(chunks()), `the export ${spec.path}`);
    return { path: spec.path, rows: count, bytes };
  } finally {
    db.close();
  }
}
