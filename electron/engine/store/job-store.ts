/**
 * Every statement on the `jobs` table, reads and writes — except a change of state, which goes
 * through the one door (job-state.ts) together with its event row. Ordering, progress, dependency
 * notes and the insert of a new job are here; who calls them decides the transaction.
 */
import type { JobFilter } from '../../../shared/api.js';
import type { FacetField, FacetValue, JobProgress } from '../../../shared/domain.js';
import { JOB_STATES, TERMINAL_STATES, type JobState } from '../../../shared/job-states.js';
import type { OrderChangeWhy } from '../../../shared/job-detail.js';
import type { Clock } from '../clock.js';
import { recordJobCreated } from '../job-state.js';
import type { Db } from './database.js';
import { DISPATCH_ORDER, jobConditions, orderBy, prefixPattern, SEQUENCE_SQL, whereJobs } from './job-filter.js';
import type { JobRow } from './job-rows.js';
import { all, one, run } from './statements.js';

const SQL_BY_ID = 'SELECT * FROM jobs WHERE id = ?';

export function jobRow(db: Db, id: string): JobRow | null {
  return one<JobRow>(db, SQL_BY_ID, id) ?? null;
}

/** The rows of the jobs that still exist, in the order asked. */
export function jobRows(db: Db, ids: readonly string[]): JobRow[] {
  const out: JobRow[] = [];
  for (const id of ids) {
    const r = jobRow(db, id);
    if (r) out.push(r);
  }
  return out;
}

export function jobState(db: Db, id: string): JobState | null {
  return one<{ state: JobState }>(db, 'SELECT state FROM jobs WHERE id = ?', id)?.state ?? null;
}

export function jobExists(db: Db, id: string): boolean {
  return one(db, 'SELECT 1 FROM jobs WHERE id = ?', id) !== undefined;
}

// ─── Lists (the queue view, select-all, the CLI) ─────────────────────────────────────────────────

export interface ListOptions {
  filter?: JobFilter | undefined;
  sort?: string | undefined;
  descending?: boolean | undefined;
  offset?: number | undefined;
  limit?: number | undefined;
}

/** A page of rows (the handler turns them into views with their wait reasons). */
export function listJobRows(db: Db, o: ListOptions): { rows: JobRow[]; total: number } {
  const w = whereJobs(o.filter);
  const total = one<{ n: number }>(db, `SELECT COUNT(*) AS n FROM jobs ${w.sql}`, w.params)?.n ?? 0;
  const rows = all<JobRow>(
    db,
    `SELECT * FROM jobs ${w.sql} ORDER BY ${orderBy(o.sort, o.descending)} LIMIT @limit OFFSET @offset`,
    {
      ...w.params,
      limit: o.limit ?? 500,
      offset: o.offset ?? 0,
    },
  );
  return { rows, total };
}

/** Ids matching a filter in queue order, capped (select-all over a large queue without loading rows). */
export function listJobIds(db: Db, filter: JobFilter | undefined, cap = 100_000): { ids: string[]; total: number } {
  const w = whereJobs(filter);
  const total = one<{ n: number }>(db, `SELECT COUNT(*) AS n FROM jobs ${w.sql}`, w.params)?.n ?? 0;
  const ids = all<{ id: string }>(db, `SELECT id FROM jobs ${w.sql} ORDER BY ${DISPATCH_ORDER} LIMIT @cap`, {
    ...w.params,
    cap,
  }).map((r) => r.id);
  return { ids, total };
}

/** Each facet as a column expression of `jobs`. */
const FACET_SQL: Record<FacetField, string> = {
  project: 'project',
  episode: 'episode',
  sequence: SEQUENCE_SQL,
  shot: 'shot',
  stage: 'stage',
  template: 'template_name',
};

/**
 * The matching jobs counted by one field, in value order, at most `limit` values (and whether there
 * are more); with `prefix`, only values starting with it (ignoring case): the filters' suggestions.
 */
export function jobFacets(
  db: Db,
  by: FacetField,
  filter: JobFilter | undefined,
  prefix: string | undefined,
  limit: number,
): { values: FacetValue[]; more: boolean } {
  const { parts, params } = jobConditions(filter);
  const column = FACET_SQL[by];
  if (prefix) {
    parts.push(`(${column}) LIKE @facetPrefix ESCAPE '\\'`);
    params.facetPrefix = prefixPattern(prefix);
  }
  const where = parts.length ? `WHERE ${parts.join(' AND ')}` : '';
  const rows = all<FacetValue>(
    db,
    `SELECT ${column} AS value, COUNT(*) AS count, SUM(state = 'running') AS running,
    SUM(state IN ('failed_final', 'timeout_kill')) AS failed FROM jobs ${where} GROUP BY 1 ORDER BY 1 LIMIT @facetLimit`,
    { ...params, facetLimit: limit + 1 },
  );
  return { values: rows.slice(0, limit), more: rows.length > limit };
}

/** How many queued jobs are ahead of this one in dispatch order (see DISPATCH_ORDER). */
export function queuedAhead(db: Db, id: string): number {
  return (
    one<{ n: number }>(
      db,
      `SELECT COUNT(*) AS n FROM jobs q, (SELECT rowid AS rid, priority, rank, enqueued_at FROM jobs WHERE id = ?) me
    WHERE q.state = 'queued' AND (q.priority > me.priority OR (q.priority = me.priority AND (q.rank < me.rank
      OR (q.rank = me.rank AND (q.enqueued_at < me.enqueued_at OR (q.enqueued_at = me.enqueued_at AND q.rowid < me.rid))))))`,
      id,
    )?.n ?? 0
  );
}

/** Ids starting with a prefix, at most two (enough to tell a unique prefix from an ambiguous one). */
export function jobIdsByPrefix(db: Db, prefix: string): string[] {
  return all<{ id: string }>(db, "SELECT id FROM jobs WHERE id LIKE ? ESCAPE '\\' LIMIT 2", prefixPattern(prefix)).map(
    (r) => r.id,
  );
}

/** Queued jobs no registered workstation could ever take (the jobs_blocked partial index). */
export function blockedCount(db: Db): number {
  return one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM jobs WHERE blocked = 1 AND state = 'queued'")?.n ?? 0;
}

export function countByState(db: Db): Record<JobState, number> {
  const out = Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>;
  for (const r of all<{ state: JobState; n: number }>(db, 'SELECT state, COUNT(*) AS n FROM jobs GROUP BY state'))
    out[r.state] = r.n;
  return out;
}

/**
 * The newest later take of the same stage of the same shot, or NULL: a take that has one is
 * superseded (the operator made a new take instead of retrying it). The UNIQUE (project, episode,
 * shot, stage, take) index answers it.
 */
const SQL_NEWER_TAKE = `(SELECT MAX(n.take) FROM jobs n WHERE n.project = j.project AND n.episode = j.episode AND n.shot = j.shot
  AND n.stage = j.stage AND n.take > j.take)`;

/** A failed job, and the newest take made after it (null while it is the latest take). */
export type FailedJobRow = JobRow & { newer_take: number | null };

/** Jobs that failed (for good, by timeout, or waiting to retry): the latest takes first, then by most recent change. */
export function failedJobs(db: Db): FailedJobRow[] {
  return all<FailedJobRow>(
    db,
    `SELECT j.*, ${SQL_NEWER_TAKE} AS newer_take FROM jobs j
    WHERE j.state IN ('failed_final', 'timeout_kill', 'failed_retryable') ORDER BY newer_take IS NOT NULL, j.updated_at DESC`,
  );
}

/** Jobs failed for good (or killed by their time limit) that nobody has handled yet: no retry, no newer take, not cancelled. */
export function openFailureCount(db: Db): number {
  return (
    one<{ n: number }>(
      db,
      `SELECT COUNT(*) AS n FROM jobs j WHERE j.state IN ('failed_final', 'timeout_kill') AND ${SQL_NEWER_TAKE} IS NULL`,
    )?.n ?? 0
  );
}

/** Jobs running on an instance, shown on its card. */
export function runningJobIds(db: Db, instanceId: string): string[] {
  return all<{ id: string }>(db, "SELECT id FROM jobs WHERE instance_id = ? AND state = 'running'", instanceId).map(
    (j) => j.id,
  );
}

export function episodeJobCount(db: Db, project: string, episode: string): number {
  return (
    one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM jobs WHERE project = ? AND episode = ?', project, episode)?.n ?? 0
  );
}

// ─── Order (priority and rank are not states: no job_events row, a job_order_changes row instead) ────────────────

/** The smallest rank among jobs of a priority, so "move to top" can go one below it. */
export function minRank(db: Db, priority: number): number {
  return one<{ r: number | null }>(db, 'SELECT MIN(rank) AS r FROM jobs WHERE priority = ?', priority)?.r ?? 0;
}

/** A job's place in the queue: its priority value and its rank within that priority. */
export interface QueueOrder {
  priority: number;
  rank: number;
}

/**
 * A bump, a move to top or their undo, and who made it (the run log's last_action_by), with its
 * history row in job_order_changes — in the caller's transaction, as a state change and its event.
 */
export function setOrder(
  db: Db,
  id: string,
  from: QueueOrder,
  to: QueueOrder,
  why: OrderChangeWhy,
  now: number,
  actor: string,
): void {
  run(
    db,
    'UPDATE jobs SET priority = ?, rank = ?, updated_at = ?, last_action_by = ? WHERE id = ?',
    to.priority,
    to.rank,
    now,
    actor,
    id,
  );
  run(db, SQL_ORDER_CHANGE, id, from.priority, to.priority, from.rank, to.rank, why, actor, now, id);
}

const SQL_ORDER_CHANGE =
  'INSERT INTO job_order_changes (job_id, from_priority, to_priority, from_rank, to_rank, why, actor, at, after_event) ' +
  'SELECT ?, ?, ?, ?, ?, ?, ?, ?, COALESCE((SELECT MAX(id) FROM job_events WHERE job_id = ?), 0)';

export interface OrderChangeRow {
  id: number;
  /** The job's newest job_events id when the change was made. */
  after_event: number;
  from_priority: number;
  to_priority: number;
  why: OrderChangeWhy;
  actor: string;
  at: number;
}

/** A job's order changes, newest first. */
export function orderChanges(db: Db, jobId: string, limit: number): OrderChangeRow[] {
  return all<OrderChangeRow>(
    db,
    'SELECT id, after_event, from_priority, to_priority, why, actor, at FROM job_order_changes WHERE job_id = ? ORDER BY id DESC LIMIT ?',
    jobId,
    limit,
  );
}

/** How many of these jobs someone other than `name` imported (the permission policy's ownership), and how many exist. */
export function importedByOthers(db: Db, ids: readonly string[], name: string): { count: number; of: number } {
  let count = 0;
  let of = 0;
  const unique = [...new Set(ids)];
  // 500 ids a query: a bulk action over a whole episode asks once per 500, not once per job.
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    const r = one<{ of: number; others: number | null }>(
      db,
      `SELECT COUNT(*) AS of, SUM(imported_by <> ?) AS others FROM jobs WHERE id IN (${chunk.map(() => '?').join(', ')})`,
      name,
      ...chunk,
    );
    of += r?.of ?? 0;
    count += r?.others ?? 0;
  }
  return { count, of };
}

// ─── Creating jobs (import, new take): the one insert ────────────────────────────────────────────

/** A job as it is first written; the state is recorded with its first event (recordJobCreated). */
export type NewJob = Pick<
  JobRow,
  | 'id'
  | 'shot_id'
  | 'project'
  | 'episode'
  | 'shot'
  | 'stage'
  | 'take'
  | 'template_id'
  | 'template_name'
  | 'params_json'
  | 'inputs_json'
  | 'seed'
  | 'seed_pinned'
  | 'priority'
  | 'rank'
  | 'state'
  | 'state_reason'
  | 'max_attempts'
  | 'depends_on'
  | 'vram_gb'
  | 'tags_json'
  | 'timeout_s'
  | 'imported_by'
> & {
  /** enqueued_at, created_at and updated_at. */
  now: number;
};

const SQL_INSERT = `INSERT INTO jobs (id, shot_id, project, episode, shot, stage, take, template_id, template_name, params_json,
  inputs_json, seed, seed_pinned, priority, rank, state, state_reason, max_attempts, depends_on, vram_gb, tags_json, timeout_s,
  imported_by, enqueued_at, created_at, updated_at)
  VALUES (@id, @shot_id, @project, @episode, @shot, @stage, @take, @template_id, @template_name, @params_json,
  @inputs_json, @seed, @seed_pinned, @priority, @rank, @state, @state_reason, @max_attempts, @depends_on, @vram_gb, @tags_json, @timeout_s,
  @imported_by, @now, @now, @now)
  ON CONFLICT (id) DO NOTHING`;

/**
 * Writes a new job and its first event row (the door's recordJobCreated: a job is never in a state
 * without its history), inside the caller's transaction. False when its id exists already (the
 * same project/episode/shot/stage/take): then nothing is written.
 */
export function insertJob(db: Db, clock: Clock, job: NewJob, created: { reason: string; actor: string }): boolean {
  if (run(db, SQL_INSERT, job).changes !== 1) return false;
  recordJobCreated(db, clock, job.id, job.state, created.reason, created.actor);
  return true;
}

/** The newest take of a stage of a shot: what a new take follows, and what a dependent stage waits for. */
export function newestTake(
  db: Db,
  project: string,
  episode: string,
  shot: string,
  stage: string,
): { id: string; take: number } | null {
  return (
    one<{ id: string; take: number }>(
      db,
      'SELECT id, take FROM jobs WHERE project = ? AND episode = ? AND shot = ? AND stage = ? ORDER BY take DESC LIMIT 1',
      project,
      episode,
      shot,
      stage,
    ) ?? null
  );
}

// ─── Dependencies ────────────────────────────────────────────────────────────────────────────────

/** Jobs waiting (pending) for this one. */
export function pendingDependents(db: Db, jobId: string): string[] {
  return all<{ id: string }>(db, "SELECT id FROM jobs WHERE depends_on = ? AND state = 'pending'", jobId).map(
    (r) => r.id,
  );
}

/** Says why the jobs waiting for this one still wait (it failed, it cannot run anywhere). */
export function setDependentsReason(db: Db, jobId: string, reason: string, now: number): void {
  run(
    db,
    "UPDATE jobs SET state_reason = ?, updated_at = ? WHERE depends_on = ? AND state = 'pending'",
    reason,
    now,
    jobId,
  );
}

/** Stages waiting on an old take (a motion clip on a failed keyframe) now wait on its new take. */
export function rearmDependents(db: Db, fromId: string, toId: string, reason: string, now: number): void {
  run(
    db,
    "UPDATE jobs SET depends_on = ?, state_reason = ?, updated_at = ? WHERE depends_on = ? AND state = 'pending'",
    toId,
    reason,
    now,
    fromId,
  );
}

export function pendingJobs(db: Db): { id: string; depends_on: string | null }[] {
  return all<{ id: string; depends_on: string | null }>(db, "SELECT id, depends_on FROM jobs WHERE state = 'pending'");
}

export function stateAndStage(db: Db, id: string): { state: JobState; stage: string } | null {
  return one<{ state: JobState; stage: string }>(db, 'SELECT state, stage FROM jobs WHERE id = ?', id) ?? null;
}

/** Does the shot already have this stage stored (any take)? Resolves an import's depends_on. */
export function stageExists(db: Db, project: string, episode: string, shot: string, stage: string): boolean {
  return (
    one(
      db,
      'SELECT 1 FROM jobs WHERE project = ? AND episode = ? AND shot = ? AND stage = ? LIMIT 1',
      project,
      episode,
      shot,
      stage,
    ) !== undefined
  );
}

// ─── The dispatcher and the outcomes of attempts ─────────────────────────────────────────────────

/** Queued jobs in dispatch order, a page at a time (the jobs_runnable index; see DISPATCH_ORDER). */
export const SQL_CANDIDATES = `SELECT * FROM jobs WHERE state = 'queued' ORDER BY ${DISPATCH_ORDER} LIMIT ? OFFSET ?`;

export function queuedPage(db: Db, limit: number, offset: number): JobRow[] {
  return all<JobRow>(db, SQL_CANDIDATES, limit, offset);
}

/**
 * The projects with queued jobs at one priority at the default rank, for fair share: a skip scan of
 * the jobs_fair index (one probe per project, however many jobs each has queued).
 */
const SQL_QUEUED_PROJECTS = `WITH RECURSIVE p(name) AS (
    SELECT MIN(project) FROM jobs WHERE state = 'queued' AND priority = @priority AND rank = 0
    UNION ALL
    SELECT (SELECT MIN(project) FROM jobs WHERE state = 'queued' AND priority = @priority AND rank = 0 AND project > p.name)
      FROM p WHERE p.name IS NOT NULL LIMIT 1000)
  SELECT name FROM p WHERE name IS NOT NULL`;

export function queuedProjects(db: Db, priority: number): string[] {
  return all<{ name: string }>(db, SQL_QUEUED_PROJECTS, { priority }).map((r) => r.name);
}

/** One project's queued jobs at a priority and the default rank, in dispatch order (jobs_fair index). */
export function queuedOfProject(db: Db, priority: number, project: string, limit: number): JobRow[] {
  return all<JobRow>(
    db,
    `SELECT * FROM jobs WHERE state = 'queued' AND priority = ? AND rank = 0 AND project = ?
    ORDER BY enqueued_at ASC, rowid ASC LIMIT ?`,
    priority,
    project,
    limit,
  );
}

/** The longest-waiting queued jobs (jobs_queued_age index): candidates for a reservation. */
export function oldestQueued(db: Db, enqueuedBefore: number): JobRow[] {
  return all<JobRow>(
    db,
    "SELECT * FROM jobs WHERE state = 'queued' AND enqueued_at <= ? ORDER BY enqueued_at LIMIT 16",
    enqueuedBefore,
  );
}

/**
 * Queued jobs in rowid order after a rowid. The `+` keeps SQLite off the state indexes: through
 * them it would read every queued job's entry and sort them by rowid (milliseconds at 100k queued,
 * asked once per look for new imports); walking the table from the rowid stops at the limit.
 */
const SQL_QUEUED_AFTER_ROWID =
  "SELECT rowid AS row_n, * FROM jobs WHERE rowid > ? AND +state = 'queued' ORDER BY rowid LIMIT ?";

/**
 * Queued jobs by rowid, `limit` after `afterRowid`: a scan of the whole queue that never holds it
 * all, or (after the newest rowid seen) the jobs imported since, also by another process.
 */
export function queuedByRowid(db: Db, afterRowid: number, limit = 500): (JobRow & { row_n: number })[] {
  return all<JobRow & { row_n: number }>(db, SQL_QUEUED_AFTER_ROWID, afterRowid, limit);
}

export function newestJobRowid(db: Db): number {
  return one<{ n: number | null }>(db, 'SELECT MAX(rowid) AS n FROM jobs')?.n ?? 0;
}

/**
 * Records why a queued job waits for good (or that it no longer does). Not a state change: no event
 * row; a no-op unless the job is still queued and the value differs, so an unchanged answer writes nothing.
 */
export function setBlocked(db: Db, id: string, reason: string | null, now: number): boolean {
  return (
    run(
      db,
      `UPDATE jobs SET blocked = @blocked, wait_reason = @reason, updated_at = @now
    WHERE id = @id AND state = 'queued' AND (blocked <> @blocked OR wait_reason IS NOT @reason)`,
      { id, blocked: reason === null ? 0 : 1, reason, now },
    ).changes === 1
  );
}

/** What the jobs running on an instance need of its VRAM (GB each), for a farm's facts read from the store. */
export function runningVramGb(db: Db, instanceId: string): number[] {
  return all<{ vram_gb: number }>(
    db,
    "SELECT vram_gb FROM jobs WHERE instance_id = ? AND state = 'running'",
    instanceId,
  ).map((r) => r.vram_gb);
}

/** Jobs that move by themselves: running or waiting out a retry's backoff. */
export function movingCount(db: Db): number {
  return (
    one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM jobs WHERE state IN ('running', 'failed_retryable')")?.n ?? 0
  );
}

/** What a claim needs of its job: the attempts charged so far and when it was queued. */
export function claimFacts(db: Db, id: string): { attempts: number; enqueued_at: number } | undefined {
  return one<{ attempts: number; enqueued_at: number }>(db, 'SELECT attempts, enqueued_at FROM jobs WHERE id = ?', id);
}

/** What deciding after a failed attempt needs: the attempts made, and the words for dependents. */
export function attemptBudget(db: Db, id: string): { attempts: number; stage: string; take: number } | undefined {
  return one<{ attempts: number; stage: string; take: number }>(
    db,
    'SELECT attempts, stage, take FROM jobs WHERE id = ?',
    id,
  );
}

const SQL_OPEN_BUDGET = `UPDATE jobs SET max_attempts = ? WHERE max_attempts <> ?
  AND state NOT IN (${TERMINAL_STATES.map((s) => `'${s}'`).join(', ')}) RETURNING id`;

/** The retry_attempts setting changed: every unfinished job gets the new budget. Returns their ids. */
export function setOpenJobsMaxAttempts(db: Db, maxAttempts: number): string[] {
  return all<{ id: string }>(db, SQL_OPEN_BUDGET, maxAttempts, maxAttempts).map((r) => r.id);
}

export function setEnqueuedAt(db: Db, id: string, at: number): void {
  run(db, 'UPDATE jobs SET enqueued_at = ? WHERE id = ?', at, id);
}

/** Retries whose backoff is over. */
export function dueRetries(db: Db, now: number): string[] {
  return all<{ id: string }>(
    db,
    "SELECT id FROM jobs WHERE state = 'failed_retryable' AND (not_before IS NULL OR not_before <= ?)",
    now,
  ).map((r) => r.id);
}

/** The earliest pending retry time, to arm one timer for it. */
export function nextRetryAt(db: Db): number | null {
  return (
    one<{ t: number | null }>(db, "SELECT MIN(not_before) AS t FROM jobs WHERE state = 'failed_retryable'")?.t ?? null
  );
}

/** Durable progress checkpoint, fenced on the attempt still being current. Not a state change. */
export function saveJobProgress(db: Db, jobId: string, attemptId: string, p: JobProgress): boolean {
  return (
    run(
      db,
      `UPDATE jobs SET progress_node = ?, progress_node_type = ?, progress_value = ?, progress_max = ?, progress_at = ?
    WHERE id = ? AND current_attempt_id = ? AND state = 'running'`,
      p.node,
      p.nodeType,
      p.value,
      p.max,
      p.at,
      jobId,
      attemptId,
    ).changes === 1
  );
}
