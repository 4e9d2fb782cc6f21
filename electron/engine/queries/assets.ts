/** Read-side queries for the asset ledger (the Ledger view), and approval for the release freeze. */
import { basename } from 'node:path';
import type { AssetPage, AssetView } from '../../../shared/domain.js';
import type { Db } from '../store/database.js';
import { stmt } from '../store/statements.js';

export interface AssetFilter {
  project?: string | undefined;
  episode?: string | undefined;
  shot?: string | undefined;
  stage?: string | undefined;
  search?: string | undefined;
  offset?: number | undefined;
  limit?: number | undefined;
}

interface AssetRow {
  id: string; job_id: string; project: string; episode: string; shot: string; stage: string; take: number; path: string; sha256: string;
  bytes: number; media_type: string; width: number | null; height: number | null; instance_name: string | null; template_name: string;
  seed: number | null; approved: number; created_at: number;
}

function toAssetView(r: AssetRow): AssetView {
  return {
    id: r.id, jobId: r.job_id, project: r.project, episode: r.episode, shot: r.shot, stage: r.stage, take: r.take, path: r.path,
    fileName: basename(r.path), sha256: r.sha256, bytes: r.bytes, mediaType: r.media_type, width: r.width, height: r.height,
    instanceName: r.instance_name, templateName: r.template_name, seed: r.seed, approved: r.approved === 1, createdAt: r.created_at,
  };
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
    params.q = `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  }
  const where = parts.length ? `WHERE ${parts.join(' AND ')}` : '';
  const total = (stmt(db, `SELECT COUNT(*) AS n FROM assets a JOIN jobs j ON j.id = a.job_id ${where}`).get(params) as { n: number }).n;
  const rows = stmt(db, `SELECT a.*, j.project, j.episode, j.shot, j.stage, j.take FROM assets a JOIN jobs j ON j.id = a.job_id ${where}
    ORDER BY a.created_at DESC, a.id LIMIT @limit OFFSET @offset`).all({ ...params, limit: f.limit ?? 200, offset: f.offset ?? 0 }) as AssetRow[];
  return { rows: rows.map(toAssetView), total };
}

export function assetById(db: Db, id: string): AssetView | null {
  const r = stmt(db, `SELECT a.*, j.project, j.episode, j.shot, j.stage, j.take FROM assets a JOIN jobs j ON j.id = a.job_id WHERE a.id = ?`).get(id) as
    | AssetRow
    | undefined;
  return r ? toAssetView(r) : null;
}

export function setApproved(db: Db, ids: readonly string[], approved: boolean): number {
  const s = stmt(db, 'UPDATE assets SET approved = ? WHERE id = ?');
  return db.transaction(() => ids.reduce((n, id) => n + s.run(approved ? 1 : 0, id).changes, 0))();
}
