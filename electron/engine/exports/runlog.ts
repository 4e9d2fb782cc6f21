/**
 * The run-log CSV (SPEC §8): one row per attempt, for postmortems and a lead's spreadsheet. The
 * columns start with where the attempt belongs (project … attempt), then what happened, where and
 * from what; times are local (ISO 8601 with the offset, plus one column a spreadsheet reads as a
 * date-time). docs/exports.md ("Run log") lists the columns; each is defined here once.
 */
import { priorityFromValue } from '../../../shared/priorities.js';
import { runlogQuery, type RunlogRow } from '../store/attempt-store.js';
import type { CsvTable } from './csv-export.js';
import { isoLocal, spreadsheetLocal } from './local-time.js';

const seconds = (ms: number): number => Math.round(ms) / 1000;
const gib = (bytes: number): number => Math.round((bytes / 1024 ** 3) * 10) / 10;

/**
 * wait_s: seconds from eligible_at — when the job last became eligible to run before this attempt
 * (attempt-store.ts, SQL_ELIGIBLE_AT) — to dispatched_at. Time held, waiting for a dependency or
 * out a retry's backoff does not count; time queued behind other jobs or for a fitting GPU does.
 */
export function waitSeconds(r: Pick<RunlogRow, 'eligible_at' | 'dispatched_at'>): number {
  return seconds(Math.max(0, r.dispatched_at - r.eligible_at));
}

/** run_s: from the server starting the prompt (or the dispatch, when the start was not seen) to the attempt's end; '' while it runs. */
export function runSeconds(r: Pick<RunlogRow, 'started_at' | 'dispatched_at' | 'finished_at'>): number | '' {
  return r.finished_at !== null ? seconds(r.finished_at - (r.started_at ?? r.dispatched_at)) : '';
}

/** One run-log column: its header and how a row fills it, side by side so neither exists without the other. */
interface RunlogColumn {
  header: string;
  cell: (r: RunlogRow) => string | number | null;
}

/** The run log's columns, in file order. */
const RUNLOG_COLUMNS: readonly RunlogColumn[] = [
  { header: 'project', cell: (r) => r.project },
  { header: 'episode', cell: (r) => r.episode },
  { header: 'sequence', cell: (r) => r.sequence },
  { header: 'shot', cell: (r) => r.shot },
  { header: 'stage', cell: (r) => r.stage },
  { header: 'take', cell: (r) => r.take },
  { header: 'attempt', cell: (r) => r.n },
  { header: 'outcome', cell: (r) => r.outcome ?? 'running' },
  { header: 'error_class', cell: (r) => r.error_class },
  { header: 'reason', cell: (r) => r.reason },
  { header: 'node_id', cell: (r) => r.node_id },
  { header: 'node_type', cell: (r) => r.node_type },
  { header: 'instance', cell: (r) => r.instance_name },
  { header: 'gpu', cell: (r) => r.gpu_name },
  { header: 'template', cell: (r) => r.template_name },
  { header: 'template_version', cell: (r) => r.template_version },
  { header: 'seed', cell: (r) => r.seed },
  { header: 'priority', cell: (r) => priorityFromValue(r.priority) },
  { header: 'dispatched_local', cell: (r) => spreadsheetLocal(r.dispatched_at) },
  { header: 'eligible_at', cell: (r) => isoLocal(r.eligible_at) },
  { header: 'dispatched_at', cell: (r) => isoLocal(r.dispatched_at) },
  { header: 'started_at', cell: (r) => isoLocal(r.started_at) },
  { header: 'finished_at', cell: (r) => isoLocal(r.finished_at) },
  { header: 'wait_s', cell: (r) => waitSeconds(r) },
  { header: 'run_s', cell: (r) => runSeconds(r) },
  { header: 'free_vram_at_dispatch_gb', cell: (r) => (r.vram_at_dispatch !== null ? gib(r.vram_at_dispatch) : '') },
  { header: 'job_id', cell: (r) => r.job_id },
  // Appended (issues 17, 18), so scripts reading the columns by position keep working.
  { header: 'imported_by', cell: (r) => r.imported_by },
  { header: 'last_action_by', cell: (r) => r.last_action_by },
  { header: 'cost_usd', cell: (r) => (r.cost_usd !== null ? r.cost_usd.toFixed(6) : '') },
];

export const RUNLOG_HEADER: readonly string[] = RUNLOG_COLUMNS.map((c) => c.header);

export const RUNLOG_CSV: CsvTable<RunlogRow> = {
  header: RUNLOG_HEADER,
  query: runlogQuery,
  toCells: (r) => RUNLOG_COLUMNS.map((c) => c.cell(r)),
};
