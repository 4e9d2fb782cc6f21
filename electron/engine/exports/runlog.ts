/** The run-log CSV (SPEC §8): one row per attempt, for postmortems. */
import type { ExportResult } from '../../../shared/domain.js';
import { exportCsv, isoTime } from './csv-export.js';
import { whereClause, type ExportFilter } from './filters.js';

export const RUNLOG_HEADER = [
  'job_id', 'project', 'episode', 'shot', 'stage', 'take', 'attempt', 'instance', 'gpu',
  'queued_at', 'dispatched_at', 'started_at', 'finished_at', 'wait_s', 'run_s',
  'outcome', 'error_class', 'reason', 'node_id', 'node_type', 'vram_at_dispatch_gb',
] as const;

interface RunlogRow {
  job_id: string;
  project: string;
  episode: string;
  shot: string;
  stage: string;
  take: number;
  n: number;
  instance_name: string | null;
  gpu_name: string | null;
  queued_at: number;
  dispatched_at: number;
  started_at: number | null;
  finished_at: number | null;
  outcome: string | null;
  error_class: string | null;
  reason: string | null;
  node_id: string | null;
  node_type: string | null;
  vram_at_dispatch: number | null;
}

const seconds = (ms: number): number => Math.round(ms) / 1000;

export function exportRunlog(dbFile: string, path: string, filter: ExportFilter): Promise<ExportResult> {
  const where = whereClause(filter, { time: 'a.dispatched_at', project: 'j.project', episode: 'j.episode', outcome: "COALESCE(a.outcome, 'running')" });
  return exportCsv<RunlogRow>({
    dbFile,
    path,
    header: RUNLOG_HEADER,
    params: where.params,
    sql: `SELECT a.job_id, j.project, j.episode, j.shot, j.stage, j.take, a.n, a.instance_name, a.gpu_name,
      a.queued_at, a.dispatched_at, a.started_at, a.finished_at, a.outcome, a.error_class, a.reason,
      a.node_id, a.node_type, a.vram_at_dispatch
      FROM attempts a JOIN jobs j ON j.id = a.job_id ${where.sql} ORDER BY a.dispatched_at, a.id`,
    toCells: (r) => [
      r.job_id, r.project, r.episode, r.shot, r.stage, r.take, r.n, r.instance_name, r.gpu_name,
      isoTime(r.queued_at), isoTime(r.dispatched_at), isoTime(r.started_at), isoTime(r.finished_at),
      seconds(r.dispatched_at - r.queued_at),
      r.finished_at !== null ? seconds(r.finished_at - (r.started_at ?? r.dispatched_at)) : '',
      r.outcome ?? 'running', r.error_class, r.reason, r.node_id, r.node_type,
      r.vram_at_dispatch !== null ? Math.round((r.vram_at_dispatch / 1024 ** 3) * 10) / 10 : '',
    ],
  });
}
