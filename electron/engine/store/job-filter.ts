/**
 * The job list's filters and sort orders as SQL fragments (WHERE and ORDER BY clauses with named
 * parameters), and the dispatch order itself — written once, for both the dispatcher's candidate
 * query and the queue view's default sort. No statement here: job-store.ts owns the jobs table's SQL.
 */
import type { JobFilter } from '../../../shared/api.js';
import { PRIORITY_VALUE } from '../../../shared/priorities.js';
import { WAITING_STATES } from '../../../shared/job-states.js';

/**
 * The dispatch order of SPEC §3: priority, then the operator's rank, then enqueue time. The rowid
 * tie-break is part of every index entry, so the jobs_runnable index (state, priority DESC, rank,
 * enqueued_at) delivers this order without sorting the queue: 100k queued jobs cost the same as ten.
 */
export const DISPATCH_ORDER = 'priority DESC, rank ASC, enqueued_at ASC, rowid ASC';

const SORTS: Record<string, string> = {
  queue: DISPATCH_ORDER,
  shot: 'project, episode, shot, stage, take',
  stage: 'stage, project, episode, shot, take',
  state: 'state, priority DESC, rank, enqueued_at',
  priority: 'priority DESC, rank, enqueued_at',
  updated: 'updated_at DESC, rowid',
  enqueued: 'enqueued_at, rowid',
};

/** ORDER BY for a sort key (default: the dispatch order), every column flipped when descending. */
export function orderBy(sort: string | undefined, descending: boolean | undefined): string {
  const order = SORTS[sort ?? 'queue'] ?? DISPATCH_ORDER;
  if (!descending) return order;
  return order
    .split(',')
    .map((c) =>
      / DESC$/.test(c) ? c.replace(/ DESC$/, ' ASC') : /ASC$/.test(c) ? c.replace(/ASC$/, 'DESC') : `${c} DESC`,
    )
    .join(',');
}

/** `LIKE @q` text for a free-text search: the operator's %, _ and \ are matched as themselves. */
export function likePattern(search: string): string {
  return `%${escapeLike(search)}%`;
}

/** `LIKE` text matching what starts with `prefix` (ignoring ASCII case, as LIKE does). */
export function prefixPattern(prefix: string): string {
  return `${escapeLike(prefix)}%`;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A job's sequence in SQL: the shot code's part before its first `_` ('' without one), as sequenceOf says. */
export const SEQUENCE_SQL = "CASE WHEN instr(shot, '_') > 1 THEN substr(shot, 1, instr(shot, '_') - 1) ELSE '' END";

/** The filter's conditions (to be joined with AND) and their named parameters. */
export function jobConditions(filter: JobFilter | undefined): { parts: string[]; params: Record<string, unknown> } {
  const parts: string[] = [];
  const params: Record<string, unknown> = {};
  if (!filter) return { parts, params };
  if (filter.states?.length) {
    parts.push(`state IN (${filter.states.map((_, i) => `@s${i}`).join(', ')})`);
    for (const [i, s] of filter.states.entries()) params[`s${i}`] = s;
  }
  for (const key of ['project', 'episode', 'shot', 'stage'] as const) {
    if (filter[key]) {
      parts.push(`${key} = @${key}`);
      params[key] = filter[key];
    }
  }
  if (filter.sequence) {
    // The shot starts with "<sequence>_": the same test as SEQUENCE_SQL, and case-sensitive like the names.
    parts.push("substr(shot, 1, length(@sequence) + 1) = @sequence || '_'");
    params.sequence = filter.sequence;
  }
  for (const [key, column] of [
    ['projectPrefix', 'project'],
    ['episodePrefix', 'episode'],
    ['shotPrefix', 'shot'],
  ] as const) {
    const prefix = filter[key];
    if (prefix) {
      parts.push(`${column} LIKE @${key} ESCAPE '\\'`);
      params[key] = prefixPattern(prefix);
    }
  }
  if (filter.instanceId) {
    // As JobView.instanceId (job-rows.ts): a waiting job is on no workstation.
    parts.push(`instance_id = @instanceId AND state NOT IN (${WAITING_STATES.map((st) => `'${st}'`).join(', ')})`);
    params.instanceId = filter.instanceId;
  }
  if (filter.importedBy) {
    parts.push('imported_by = @importedBy');
    params.importedBy = filter.importedBy;
  }
  if (filter.blocked !== undefined) {
    // The flag counts only while queued (job-rows.ts isBlocked).
    parts.push(filter.blocked ? "(blocked = 1 AND state = 'queued')" : "NOT (blocked = 1 AND state = 'queued')");
  }
  if (filter.priority) {
    parts.push('priority = @priority');
    params.priority = PRIORITY_VALUE[filter.priority];
  }
  if (filter.search) {
    parts.push(`(shot LIKE @q ESCAPE '\\' OR stage LIKE @q ESCAPE '\\' OR template_name LIKE @q ESCAPE '\\'
      OR episode LIKE @q ESCAPE '\\' OR COALESCE(state_reason, '') LIKE @q ESCAPE '\\' OR id LIKE @q ESCAPE '\\')`);
    params.q = likePattern(filter.search);
  }
  return { parts, params };
}

export function whereJobs(filter: JobFilter | undefined): { sql: string; params: Record<string, unknown> } {
  const { parts, params } = jobConditions(filter);
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}
