/**
 * Every statement on `assets`, the ledger: one row per output file, written with the job's
 * `completed` in one transaction (scheduler/outcomes.ts), read by the Ledger view, the release
 * freeze, a dependent stage's upload and the ledger export. A ledger row is shown with its job's
 * shot, stage and take, so these queries join `jobs`.
 */
import { basename } from 'node:path';
import type { AssetPage, AssetView } from '../../../shared/domain.js';
import type { Db } from './database.js';
import { whereClause, type ExportFilter } from './export-filter.js';
import { likePattern } from './job-filter.js';
import type { JobNameColumns } from './job-rows.js';
import { all, one, run } from './statements.js';

/** A ledger row with its job's names (what the Ledger view and the export show). */
export interface LedgerRow extends JobNameColumns {
  id: string;
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

/** A ledger row as the CSV export reads it: with who approved it and when. */
export interface LedgerExportRow extends LedgerRow {
  approved_by: string | null;
  approved_at: number | null;
}

function toAssetView(r: LedgerRow): AssetView {
  return {
    id: r.id,
    jobId: r.job_id,
    project: r.project,
    episode: r.episode,
    shot: r.shot,
    stage: r.stage,
    take: r.take,
    path: r.path,
    fileName: basename(r.path),
    sha256: r.sha256,
    bytes: r.bytes,
    mediaType: r.media_type,
    width: r.width,
    height: r.height,
    instanceName: r.instance_name,
    templateName: r.template_name,
    seed: r.seed,
    approved: r.approved === 1,
    createdAt: r.created_at,
  };
}

const LEDGER_COLUMNS = 'a.*, j.project, j.episode, j.shot, j.stage, j.take';

export interface AssetFilter {
  project?: string | undefined;
  episode?: string | undefined;
  shot?: string | undefined;
  stage?: string | undefined;
  search?: string | undefined;
  upTo?: number | undefined;
  offset?: number | undefined;
  limit?: number | undefined;
}

export function listAssets(db: Db, f: AssetFilter): AssetPage {
  const parts: string[] = [];
  const params: Record<string, unknown> = {};
  for (const key of ['project', 'episode', 'shot', 'stage'] as const) {
    if (f[key]) {
      parts.push(`j.${key} = @${key}`);
      params[key] = f[key];
    }
  }
  if (f.search) {
    parts.push(`(j.shot LIKE @q ESCAPE '\\' OR a.path LIKE @q ESCAPE '\\' OR a.sha256 LIKE @q ESCAPE '\\')`);
    params.q = likePattern(f.search);
  }
  // The ledger position is the row's rowid: it only grows as outputs are stored.
  const position = one<{ n: number | null }>(db, 'SELECT MAX(rowid) AS n FROM assets')?.n ?? 0;
  const count = (extra: string | null, p: Record<string, unknown>): number => {
    const conds = extra ? [...parts, extra] : parts;
    return (
      one<{ n: number }>(
        db,
        `SELECT COUNT(*) AS n FROM assets a JOIN jobs j ON j.id = a.job_id ${conds.length ? `WHERE ${conds.join(' AND ')}` : ''}`,
        p,
      )?.n ?? 0
    );
  };
  const newer = f.upTo !== undefined ? count('a.rowid > @upTo', { ...params, upTo: f.upTo }) : 0;
  if (f.upTo !== undefined) {
    parts.push('a.rowid <= @upTo');
    params.upTo = f.upTo;
  }
  const where = parts.length ? `WHERE ${parts.join(' AND ')}` : '';
  const total = count(null, params);
  const rows = all<LedgerRow>(
    db,
    `SELECT ${LEDGER_COLUMNS} FROM assets a JOIN jobs j ON j.id = a.job_id ${where}
    ORDER BY a.created_at DESC, a.id LIMIT @limit OFFSET @offset`,
    { ...params, limit: f.limit ?? 200, offset: f.offset ?? 0 },
  );
  return { rows: rows.map(toAssetView), total, position, newer };
}

export function assetById(db: Db, id: string): AssetView | null {
  const r = one<LedgerRow>(
    db,
    `SELECT ${LEDGER_COLUMNS} FROM assets a JOIN jobs j ON j.id = a.job_id WHERE a.id = ?`,
    id,
  );
  return r ? toAssetView(r) : null;
}

/** A job's output files, in the order they were written (the job drawer's thumbnails). */
export function assetsOfJob(db: Db, jobId: string): AssetView[] {
  return all<LedgerRow>(
    db,
    `SELECT ${LEDGER_COLUMNS} FROM assets a JOIN jobs j ON j.id = a.job_id WHERE a.job_id = ? ORDER BY a.created_at, a.id`,
    jobId,
  ).map(toAssetView);
}

/** Approves (or un-approves) assets, recording who did it and when (the approver; cleared with the approval). */
export function setApproved(db: Db, ids: readonly string[], approved: boolean, by: string, now: number): number {
  const sql = 'UPDATE assets SET approved = ?, approved_by = ?, approved_at = ? WHERE id = ?';
  return db.transaction(() =>
    ids.reduce(
      (n, id) => n + run(db, sql, approved ? 1 : 0, approved ? by : null, approved ? now : null, id).changes,
      0,
    ),
  );
}

/** One output file as collected, before it is a ledger row. */
export interface StoredAsset {
  id: string;
  nodeId: string | null;
  path: string;
  sha256: string;
  bytes: number;
  mediaType: string;
  width: number | null;
  height: number | null;
}

/** What every ledger row of one attempt shares: where and from what it was rendered. */
export interface AssetContext {
  instanceId: string;
  instanceName: string;
  templateName: string;
  templateHash: string;
  paramsJson: string;
  seed: number | null;
}

const SQL_INSERT = `INSERT INTO assets (id, job_id, attempt_id, node_id, path, sha256, bytes, media_type, width, height, instance_id,
  instance_name, template_name, template_hash, params_json, seed, created_at)
  VALUES (@id, @job_id, @attempt_id, @node_id, @path, @sha256, @bytes, @media_type, @width, @height, @instance_id, @instance_name,
  @template_name, @template_hash, @params_json, @seed, @now)
  ON CONFLICT (path) DO UPDATE SET sha256 = excluded.sha256, bytes = excluded.bytes, attempt_id = excluded.attempt_id, created_at = excluded.created_at`;

/** A ledger row (inside the caller's transaction: the job's `completed` goes with it). */
export function insertAsset(
  db: Db,
  jobId: string,
  attemptId: string,
  a: StoredAsset,
  ctx: AssetContext,
  now: number,
): void {
  run(db, SQL_INSERT, {
    id: a.id,
    job_id: jobId,
    attempt_id: attemptId,
    node_id: a.nodeId,
    path: a.path,
    sha256: a.sha256,
    bytes: a.bytes,
    media_type: a.mediaType,
    width: a.width,
    height: a.height,
    instance_id: ctx.instanceId,
    instance_name: ctx.instanceName,
    template_name: ctx.templateName,
    template_hash: ctx.templateHash,
    params_json: ctx.paramsJson,
    seed: ctx.seed,
    now,
  });
}

/** The first image a job stored: what a dependent stage (a motion clip) is fed. */
export function firstImageOf(db: Db, jobId: string): { path: string; stage: string; take: number } | undefined {
  return one<{ path: string; stage: string; take: number }>(
    db,
    `SELECT a.path, j.stage, j.take FROM assets a JOIN jobs j ON j.id = a.job_id
    WHERE a.job_id = ? AND a.media_type LIKE 'image/%' ORDER BY a.node_id, a.path LIMIT 1`,
    jobId,
  );
}

export interface ApprovedRow {
  id: string;
  job_id: string;
  path: string;
  sha256: string;
  bytes: number;
  shot: string;
  stage: string;
  take: number;
}

/** The approved assets of an episode, in the order a person reads a cut: shot, stage, take, file. */
export function approvedAssets(db: Db, project: string, episode: string): ApprovedRow[] {
  return all<ApprovedRow>(
    db,
    `SELECT a.id, a.job_id, a.path, a.sha256, a.bytes, j.shot, j.stage, j.take
    FROM assets a JOIN jobs j ON j.id = a.job_id
    WHERE j.project = ? AND j.episode = ? AND a.approved = 1
    ORDER BY j.shot, j.stage, j.take, a.path`,
    project,
    episode,
  );
}

export function episodeAssetCount(db: Db, project: string, episode: string): number {
  return (
    one<{ n: number }>(
      db,
      'SELECT COUNT(*) AS n FROM assets a JOIN jobs j ON j.id = a.job_id WHERE j.project = ? AND j.episode = ?',
      project,
      episode,
    )?.n ?? 0
  );
}

/** The ledger export's query (streamed by exports/ from a read-only connection of its own). */
export function ledgerQuery(filter: ExportFilter): { sql: string; params: Record<string, unknown> } {
  const where = whereClause(filter, { time: 'a.created_at', project: 'j.project', episode: 'j.episode' });
  return {
    params: where.params,
    sql: `SELECT a.id, a.job_id, j.project, j.episode, j.shot, j.stage, j.take, a.path, a.sha256, a.bytes, a.media_type,
      a.width, a.height, a.instance_name, a.template_name, a.template_hash, a.params_json, a.seed, a.approved, a.created_at,
      a.approved_by, a.approved_at
      FROM assets a JOIN jobs j ON j.id = a.job_id ${where.sql} ORDER BY a.created_at, a.id`,
  };
}
