/**
 * The CSV exports every host offers: their kinds, the filters they take, and the file name a new
 * export gets. Defined once here: the engine writes them, the headless server streams them as a
 * download, the desktop app proposes the name in its save dialog, the CLI uses it as `--out`'s default.
 */
import { z } from 'zod';

export const EXPORT_KINDS = ['runlog', 'ledger'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

export function isExportKind(v: unknown): v is ExportKind {
  return typeof v === 'string' && (EXPORT_KINDS as readonly string[]).includes(v);
}

/** The run-log outcomes a filter may name ('running' = the attempt has not ended). */
export const RUNLOG_OUTCOMES = [
  'completed',
  'failed',
  'retry',
  'timeout',
  'lost',
  'cancelled',
  'requeued',
  'running',
] as const;

/** What both exports filter on: a time range (dispatch time for the run log, creation time for the ledger), names, an outcome. */
export const exportFilterSchema = z.strictObject({
  from: z.number().int().optional(),
  to: z.number().int().optional(),
  project: z.string().optional(),
  episode: z.string().optional(),
  outcome: z.string().optional(),
});
export type ExportFilterInput = z.infer<typeof exportFilterSchema>;

const two = (n: number): string => String(n).padStart(2, '0');

/**
 * `shotfarm-runlog-2026-12-01_14-03-12.csv`, in local time: the date and the time to the second, so a
 * second export the same day gets a name of its own (and the engine never replaces a file anyway).
 * No colons: Windows forbids them in file names.
 */
export function exportFileName(kind: ExportKind, at: Date): string {
  const date = `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}`;
  const time = `${two(at.getHours())}-${two(at.getMinutes())}-${two(at.getSeconds())}`;
  return `shotfarm-${kind}-${date}_${time}.csv`;
}

/** The export filter as URL query parameters (the server's download route), and back. */
export function exportFilterToQuery(f: ExportFilterInput): URLSearchParams {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v !== undefined && v !== '') q.set(k, String(v));
  return q;
}

/** Query parameters → the filter's shape (numbers for the time range); the schema then decides. */
export function exportFilterFromQuery(q: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of q) {
    // The ticket that opened the download is the route's, not a filter (a `token` never gets this far).
    if (k === 'ticket') continue;
    out[k] = k === 'from' || k === 'to' ? (/^-?\d+$/.test(v) ? Number(v) : v) : v;
  }
  return out;
}
