/** The run-log CSV (SPEC §8): one row per attempt, for postmortems. */
import { runlogQuery, type RunlogRow } from '../store/attempt-store.js';
import { isoTime, type CsvTable } from './csv-export.js';

export const RUNLOG_HEADER = [
  'job_id', 'project', 'episode', 'shot', 'stage', 'take', 'attempt', 'instance', 'gpu',
  'queued_at', 'dispatched_at', 'started_at', 'finished_at', 'wait_s', 'run_s',
  'outcome', 'error_class', 'reason', 'node_id', 'node_type', 'vram_at_dispatch_gb', 'cost_usd',
] as const;

const seconds = (ms: number): number => Math.round(ms) / 1000;

export const RUNLOG_CSV: CsvTable<RunlogRow> = {
  header: RUNLOG_HEADER,
  query: runlogQuery,
  toCells: (r) => [
    r.job_id, r.project, r.episode, r.shot, r.stage, r.take, r.n, r.instance_name, r.gpu_name,
    isoTime(r.queued_at), isoTime(r.dispatched_at), isoTime(r.started_at), isoTime(r.finished_at),
    seconds(r.dispatched_at - r.queued_at),
    r.finished_at !== null ? seconds(r.finished_at - (r.started_at ?? r.dispatched_at)) : '',
    r.outcome ?? 'running', r.error_class, r.reason, r.node_id, r.node_type,
    r.vram_at_dispatch !== null ? Math.round((r.vram_at_dispatch / 1024 ** 3) * 10) / 10 : '',
    r.cost_usd !== null ? r.cost_usd.toFixed(6) : '',
  ],
};
