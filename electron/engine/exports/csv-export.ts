/**
 * Streams rows from a query as CSV without holding them in memory: a read-only connection of its
 * own (WAL lets it read while the engine writes) and a generator of 64 KiB chunks pulled by the
 * consumer with backpressure — a file written atomically that never replaces one (exportTable), or
 * an HTTP download (csvStream). Cells are made safe for spreadsheets. (csv-stringify's per-record
 * stream cost more than the query for 100k rows.)
 */
import { existsSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { ExportResult } from '../../../shared/domain.js';
import { fileExistsError, writeStreamAtomically } from '../files/atomic-write.js';
import type { ExportFilter } from '../store/export-filter.js';
import { each } from '../store/statements.js';
import { openReader, type StoreTarget } from '../store/store-target.js';

/** A text cell starting like a formula is prefixed so a spreadsheet shows it instead of running it. */
export function spreadsheetSafe(value: unknown): string | number {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return value;
  const s = String(value);
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}

/** One CSV export: its columns, its query (the store's, from the filters) and how a row becomes cells. */
export interface CsvTable<Row> {
  header: readonly string[];
  query: (filter: ExportFilter) => { sql: string; params: Record<string, unknown> };
  toCells: (row: Row) => unknown[];
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

/** The CSV text of a table's rows matching `filter`, chunk by chunk; `rows()` counts what was sent so far. */
export interface CsvStream {
  stream: Readable;
  rows(): number;
}

/**
 * Opens a reading connection of its own to the store and streams `table`'s rows matching `filter`.
 * The connection closes when the stream ends or is destroyed (a download cancelled half-way).
 */
export function csvStream<Row>(store: StoreTarget, table: CsvTable<Row>, filter: ExportFilter): CsvStream {
  const { sql, params } = table.query(filter);
  const db = openReader(store);
  let count = 0;
  function* chunks(): Generator<string> {
    try {
      // BOM so spreadsheet apps read UTF-8 (accented shot names, CJK descriptions) correctly.
      let chunk = `\ufeff${csvRecord(table.header)}`;
      for (const row of each<Row>(db, sql, params)) {
        count++;
        chunk += csvRecord(table.toCells(row));
        if (chunk.length >= CHUNK_CHARS) {
          yield chunk;
          chunk = '';
        }
      }
      if (chunk) yield chunk;
    } finally {
      db.close();
    }
  }
  const stream = Readable.from(chunks());
  // A stream destroyed before it was read at all never starts the generator, so its finally never runs.
  stream.once('close', () => db.close());
  return { stream, rows: () => count };
}

/**
 * Writes `table`'s rows matching `filter` to `path`, from a reading connection of its own. An
 * existing file is never replaced: the export fails with a conflict and the file stays as it was.
 */
export async function exportTable<Row>(
  store: StoreTarget,
  path: string,
  table: CsvTable<Row>,
  filter: ExportFilter,
): Promise<ExportResult> {
  if (existsSync(path)) throw fileExistsError(path);
  const csv = csvStream(store, table, filter);
  const bytes = await writeStreamAtomically(path, csv.stream, `the export ${path}`, { replace: false });
  return { path, rows: csv.rows(), bytes };
}
