/** Named queries for reading jobs (lists, filters, counts). State changes go through job-state.ts only. */
import type { JobFilter } from '../../../shared/api.js';
import type { JobView } from '../../../shared/domain.js';
import { JOB_STATES, type JobState } from '../../../shared/job-states.js';
import { PRIORITY_VALUE } from '../../../shared/priorities.js';
import type { Db } from './database.js';
import { toJobView, type JobRow } from './job-rows.js';
import { stmt } from './statements.js';

const SORTS: Record<string, string> = {
  // The dispatch order of SPEC §3.
  queue: 'priority DESC, rank ASC, enqueued_at ASC, rowid ASC',
  shot: 'project, episode, shot, stage, take',
  stage: 'stage, project, episode, shot, take',
  state: 'state, priority DESC, rank, enqueued_at',
  priority: 'priority DESC, rank, enqueued_at',
  updated: 'updated_at DESC, rowid',
  enqueued: 'enqueued_at, rowid',
};

function where(filter: JobFilter | undefined): { sql: string; params: Record<string, unknown> } {
  const parts: string[] = [];
  const params: Record<string, unknown> = {};
  if (!filter) return { sql: '', params };
  if (filter.states?.length) {
    parts.push(`state IN (${filter.states.map((_, i) => `@s${i}`).join(', ')})`);
    filter.states.forEach((s, i) => (params[`s${i}`] = s));
  }
  for (const key of ['project', 'episode', 'shot', 'stage'] as const) {
    if (filter[key]) {
      parts.push(`${key} = @${key}`);
      params[key] = filter[key];
    }
  }
  if (filter.instanceId) {
    parts.push('instance_id = @instanceId');
    params.instanceId = filter.instanceId;
  }
  if (filter.priority) {
    parts.push('priority = @priority');
    params.priority = PRIORITY_VALUE[filter.priority];
  }
  if (filter.search) {
    parts.push(`(shot LIKE @q ESCAPE '\\' OR stage LIKE @q ESCAPE '\\' OR template_name LIKE @q ESCAPE '\\'
      OR episode LIKE @q ESCAPE '\\' OR COALESCE(state_reason, '') LIKE @q ESCAPE '\\' OR id LIKE @q ESCAPE '\\')`);
    params.q = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

export interface ListOptions {
  filter?: JobFilter | undefined;
  sort?: string | undefined;
  descending?: boolean | undefined;
  offset?: number | undefined;
  limit?: number | undefined;
}

export function listJobs(db: Db, o: ListOptions): { rows: JobView[]; total: number } {
  const w = where(o.filter);
  let order = SORTS[o.sort ?? 'queue'] ?? (SORTS.queue as string);
  if (o.descending) order = order.split(',').map((c) => (/ DESC$/.test(c) ? c.replace(/ DESC$/, ' ASC') : /ASC$/.test(c) ? c.replace(/ASC$/, 'DESC') : `${c} DESC`)).join(',');
  const total = (stmt(db, `SELECT COUNT(*) AS n FROM jobs ${w.sql}`).get(w.params) as { n: number }).n;
  const rows = stmt(db, `SELECT * FROM jobs ${w.sql} ORDER BY ${order} LIMIT @limit OFFSET @offset`).all({
    ...w.params,
    limit: o.limit ?? 500,
    offset: o.offset ?? 0,
  }) as JobRow[];
  return { rows: rows.map(toJobView), total };
}

export function jobRow(db: Db, id: string): JobRow | null {
  return (stmt(db, 'SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined) ?? null;
}

/** The views of the jobs that still exist, in the order asked. */
export function jobViews(db: Db, ids: readonly string[]): JobView[] {
  const out: JobView[] = [];
  for (const id of ids) {
    const r = jobRow(db, id);
    if (r) out.push(toJobView(r));
  }
  return out;
}

export function countByState(db: Db): Record<JobState, number> {
  const out = Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>;
  for (const r of stmt(db, 'SELECT state, COUNT(*) AS n FROM jobs GROUP BY state').all() as { state: JobState; n: number }[]) {
    out[r.state] = r.n;
  }
  return out;
}

/** The smallest rank among jobs of a priority, so "move to top" can go one below it. */
export function minRank(db: Db, priority: number): number {
  return (stmt(db, 'SELECT MIN(rank) AS r FROM jobs WHERE priority = ?').get(priority) as { r: number | null }).r ?? 0;
}

/** Sets priority/rank (ordering, not state): no event row needed, but updated_at moves. */
export function setOrder(db: Db, id: string, priority: number, rank: number, now: number): void {
  stmt(db, 'UPDATE jobs SET priority = ?, rank = ?, updated_at = ? WHERE id = ?').run(priority, rank, now, id);
}

/** Ids matching a filter in queue order, capped (select-all over a large queue without loading rows). */
export function listJobIds(db: Db, filter: JobFilter | undefined, cap = 100_000): { ids: string[]; total: number } {
  const w = where(filter);
  const total = (stmt(db, `SELECT COUNT(*) AS n FROM jobs ${w.sql}`).get(w.params) as { n: number }).n;
  const ids = (stmt(db, `SELECT id FROM jobs ${w.sql} ORDER BY ${SORTS.queue} LIMIT @cap`).all({ ...w.params, cap }) as { id: string }[]).map((r) => r.id);
  return { ids, total };
}
