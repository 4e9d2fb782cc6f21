/** The asset ledger CSV (SPEC §8): one row per file a job produced, traceable to its shot and settings. */
import { ledgerQuery, type LedgerExportRow } from '../store/asset-store.js';
import type { CsvTable } from './csv-export.js';
import { isoLocal } from './local-time.js';

export const LEDGER_HEADER = [
  'asset_id',
  'job_id',
  'project',
  'episode',
  'shot',
  'stage',
  'take',
  'path',
  'sha256',
  'bytes',
  'media_type',
  'width',
  'height',
  'instance',
  'template',
  'template_hash',
  'parameters',
  'seed',
  'approved',
  'created_at',
  // Appended (issue 17): who approved the file and when, after the existing columns in their old order.
  'approved_by',
  'approved_at',
] as const;

export const LEDGER_CSV: CsvTable<LedgerExportRow> = {
  header: LEDGER_HEADER,
  query: ledgerQuery,
  toCells: (r) => [
    r.id,
    r.job_id,
    r.project,
    r.episode,
    r.shot,
    r.stage,
    r.take,
    r.path,
    r.sha256,
    r.bytes,
    r.media_type,
    r.width,
    r.height,
    r.instance_name,
    r.template_name,
    r.template_hash,
    r.params_json,
    r.seed,
    r.approved ? 'yes' : 'no',
    isoLocal(r.created_at),
    r.approved_by,
    isoLocal(r.approved_at),
  ],
};
