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

export const RUNLOG_HEADER = [
  'project', 'episode', 'sequence', 'shot', 'stage', 'take', 'attempt',
  'outcome', 'error_class', 'reason', 'node_id', 'node_type',
  'instance', 'gpu', 'template', 'template_version', 'seed', 'priority',
  'dispatched_local', 'eligible_at', 'dispatched_at', 'started_at', 'finished_at', 'wait_s', 'run_s',
  'free_vram_at_dispatch_gb', 'job_id',
  // Appended (issues 17, 18), so scripts reading the columns by position keep working.
  'imported_by', 'last_action_by', 'cost_usd',
] as const;

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

export const RUNLOG_CSV: CsvTable<RunlogRow> = {
  header: RUNLOG_HEADER,
  query: runlogQuery,
  toCells: (r) => [
    r.project, r.episode, r.sequence, r.shot, r.stage, r.take, r.n,
    r.outcome ?? 'running', r.error_class, r.reason, r.node_id, r.node_type,
    r.instance_name, r.gpu_name, r.template_name, r.template_version, r.seed, priorityFromValue(r.priority),
    spreadsheetLocal(r.dispatched_at), isoLocal(r.eligible_at), isoLocal(r.dispatched_at), isoLocal(r.started_at), isoLocal(r.finished_at),
    waitSeconds(r), runSeconds(r),
    r.vram_at_dispatch !== null ? gib(r.vram_at_dispatch) : '', r.job_id,
    r.imported_by, r.last_action_by,
    r.cost_usd !== null ? r.cost_usd.toFixed(6) : '',
  ],
};
