/** The asset ledger CSV (SPEC §8): one row per file a job produced, traceable to its shot and settings. */
import type { ExportResult } from '../../../shared/domain.js';
import { exportCsv, isoTime } from './csv-export.js';
import { whereClause, type ExportFilter } from './filters.js';

export const LEDGER_HEADER = [
  'asset_id', 'job_id', 'project', 'episode', 'shot', 'stage', 'take', 'path', 'sha256', 'bytes', 'media_type',
  'width', 'height', 'instance', 'template', 'template_hash', 'parameters', 'seed', 'approved', 'created_at',
] as const;

interface LedgerRow {
  id: string;
  job_id: string;
  project: string;
  episode: string;
  shot: string;
  stage: string;
  take: number;
  path: string;
  sha256: string;
  bytes: number;
  media_type: string;
  width: number | null;
  height: number | null;
  instance_name: string | null;
  template_name: string;
  template_hash: string;
  params_json: string;
  seed: number | null;
  approved: number;
  created_at: number;
}

export function exportLedger(dbFile: string, path: string, filter: ExportFilter): Promise<ExportResult> {
  const where = whereClause(filter, { time: 'a.created_at', project: 'j.project', episode: 'j.episode' });
  return exportCsv<LedgerRow>({
    dbFile,
    path,
    header: LEDGER_HEADER,
    params: where.params,
    sql: `SELECT a.id, a.job_id, j.project, j.episode, j.shot, j.stage, j.take, a.path, a.sha256, a.bytes, a.media_type,
      a.width, a.height, a.instance_name, a.template_name, a.template_hash, a.params_json, a.seed, a.approved, a.created_at
      FROM assets a JOIN jobs j ON j.id = a.job_id ${where.sql} ORDER BY a.created_at, a.id`,
    toCells: (r) => [
      r.id, r.job_id, r.project, r.episode, r.shot, r.stage, r.take, r.path, r.sha256, r.bytes, r.media_type,
      r.width, r.height, r.instance_name, r.template_name, r.template_hash, r.params_json, r.seed,
      r.approved ? 'yes' : 'no', isoTime(r.created_at),
    ],
  });
}
