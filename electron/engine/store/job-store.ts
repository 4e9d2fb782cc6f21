/**
 * Every statement on the `jobs` table, reads and writes — except a change of state, which goes
 * through the one door (job-state.ts) together with its event row. Ordering, progress, dependency
 * notes and the insert of a new job are here; who calls them decides the transaction.
 */
import type { JobFilter } from '../../../shared/api.js';
import type { FacetField, FacetValue, JobProgress } from '../../../shared/domain.js';
import { BACKLOG_STATES, JOB_STATES, TERMINAL_STATES, type JobState } from '../../../shared/job-states.js';
import type { OrderChangeWhy } from '../../../shared/job-detail.js';
import type { Clock } from '../clock.js';
import { recordJobCreated, recordJobsCreated, recordStoredJobsCreated } from '../job-state.js';
import {
  type BulkInsert,
  inPadded,
  insertRows,
  insertRowsAfterLast,
  paramList,
  unnestRows,
  valueRows,
} from './bulk.js';
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
    `SELECT ${column} AS value, COUNT(*) AS count, SUM(CASE WHEN state = 'running' THEN 1 ELSE 0 END) AS running,
    SUM(CASE WHEN state IN ('failed_final', 'timeout_kill') THEN 1 ELSE 0 END) AS failed FROM jobs ${where} GROUP BY 1 ORDER BY 1 LIMIT @facetLimit`,
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

/** A failed job with its insertion order (rowid, a real column on PostgreSQL): ties of updated_at go by it. */
export type OrderedFailedJobRow = FailedJobRow & { row_n: number };

/** The reason a failed job is grouped under before the instance names are taken out (failureKey). */
export const NO_REASON = 'no reason recorded';

/**
 * One stored (error class, reason) of failed jobs: how many, how many of them superseded, and its
 * first `limit` jobs in the Failures view's order (latest takes first, then most recent change).
 */
export interface FailedReasonRows {
  errorClass: string | null;
  reason: string;
  count: number;
  superseded: number;
  rows: OrderedFailedJobRow[];
}

type FailedWindowRow = OrderedFailedJobRow & {
  reason_key: string;
  pick: number;
  group_count: number;
  group_superseded: number;
};

/**
 * Jobs that failed (for good, by timeout, or waiting to retry) by stored error class and reason,
 * counted in SQL and at most `limit` rows of each: a studio's 12k failures of one cause cost one
 * grouped query, not 12k rows read into the engine. Ties of updated_at go by insertion order (an
 * integer sorts faster than a 36-character id), so the pick is stable.
 */
export function failedJobsByReason(db: Db, limit: number): FailedReasonRows[] {
  const rows = all<FailedWindowRow>(
    db,
    // The window runs over narrow rows (id, class, reason, change time, newer take); only the picked
    // rows are read whole.
    `SELECT j.*, w.row_n, w.newer_take, w.reason_key, w.pick, w.group_count, w.group_superseded FROM (
      SELECT f.id, f.row_n, f.error_class, f.reason_key, f.newer_take,
        ROW_NUMBER() OVER (PARTITION BY f.error_class, f.reason_key
          ORDER BY f.newer_take IS NOT NULL, f.updated_at DESC, f.row_n) AS pick,
        COUNT(*) OVER (PARTITION BY f.error_class, f.reason_key) AS group_count,
        SUM(CASE WHEN f.newer_take IS NULL THEN 0 ELSE 1 END) OVER (PARTITION BY f.error_class, f.reason_key) AS group_superseded
      FROM (SELECT j.id, j.rowid AS row_n, j.error_class, j.updated_at, COALESCE(j.state_reason, '${NO_REASON}') AS reason_key,
          ${SQL_NEWER_TAKE} AS newer_take
        FROM jobs j WHERE j.state IN ('failed_final', 'timeout_kill', 'failed_retryable')) f
    ) w JOIN jobs j ON j.id = w.id WHERE w.pick <= @limit ORDER BY w.error_class, w.reason_key, w.pick`,
    { limit },
  );
  const out: FailedReasonRows[] = [];
  let cur: FailedReasonRows | undefined;
  for (const r of rows) {
    if (!cur || cur.errorClass !== r.error_class || cur.reason !== r.reason_key) {
      cur = {
        errorClass: r.error_class,
        reason: r.reason_key,
        count: r.group_count,
        superseded: r.group_superseded,
        rows: [],
      };
      out.push(cur);
    }
    cur.rows.push(r);
  }
  return out;
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
      `SELECT COUNT(*) AS of, SUM(CASE WHEN imported_by <> ? THEN 1 ELSE 0 END) AS others FROM jobs WHERE id IN (${chunk.map(() => '?').join(', ')})`,
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
  | 'due_at'
> & {
  /** enqueued_at, created_at and updated_at. */
  now: number;
};

const SQL_INSERT = `INSERT INTO jobs (id, shot_id, project, episode, shot, stage, take, template_id, template_name, params_json,
  inputs_json, seed, seed_pinned, priority, rank, state, state_reason, max_attempts, depends_on, vram_gb, tags_json, timeout_s,
  imported_by, due_at, enqueued_at, created_at, updated_at)
  VALUES (@id, @shot_id, @project, @episode, @shot, @stage, @take, @template_id, @template_name, @params_json,
  @inputs_json, @seed, @seed_pinned, @priority, @rank, @state, @state_reason, @max_attempts, @depends_on, @vram_gb, @tags_json, @timeout_s,
  @imported_by, @due_at, @now, @now, @now)
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

/** The columns of a job as it is first written, in the order of the bulk insert's values. */
export const NEW_JOB_COLUMNS = [
  'id',
  'shot_id',
  'project',
  'episode',
  'shot',
  'stage',
  'take',
  'template_id',
  'template_name',
  'params_json',
  'inputs_json',
  'seed',
  'seed_pinned',
  'priority',
  'rank',
  'state',
  'state_reason',
  'max_attempts',
  'depends_on',
  'vram_gb',
  'tags_json',
  'timeout_s',
  'imported_by',
  'due_at',
] as const satisfies readonly (keyof NewJob)[];

/** SQLite's bulk insert: no RETURNING (insertJobsSqlite says why). */
const sqlInsertJobs = (rows: number): string =>
  `INSERT INTO jobs (${NEW_JOB_COLUMNS.join(', ')}, enqueued_at, created_at, updated_at)
  VALUES ${valueRows(NEW_JOB_COLUMNS.length + 3, rows)}
  ON CONFLICT (id) DO NOTHING`;

/** Each bulk-inserted column's PostgreSQL type (the migrations' INTEGER is BIGINT there, REAL DOUBLE PRECISION). */
const NEW_JOB_PG_TYPES: Record<(typeof NEW_JOB_COLUMNS)[number], string> = {
  id: 'text',
  shot_id: 'bigint',
  project: 'text',
  episode: 'text',
  shot: 'text',
  stage: 'text',
  take: 'bigint',
  template_id: 'bigint',
  template_name: 'text',
  params_json: 'text',
  inputs_json: 'text',
  seed: 'bigint',
  seed_pinned: 'bigint',
  priority: 'bigint',
  rank: 'bigint',
  state: 'text',
  state_reason: 'text',
  max_attempts: 'bigint',
  depends_on: 'text',
  vram_gb: 'double precision',
  tags_json: 'text',
  timeout_s: 'bigint',
  imported_by: 'text',
  due_at: 'bigint',
};

/** The bulk insert on PostgreSQL: the same rows and conflict rule, one array per column (bulk.ts unnestRows). */
const SQL_INSERT_JOBS_ARRAYS = `INSERT INTO jobs (${NEW_JOB_COLUMNS.join(', ')}, enqueued_at, created_at, updated_at)
  ${unnestRows([...NEW_JOB_COLUMNS.map((c) => NEW_JOB_PG_TYPES[c]), 'bigint', 'bigint', 'bigint'])}
  ON CONFLICT (id) DO NOTHING RETURNING id`;

/**
 * A job's values in the bulk insert's column order (NEW_JOB_COLUMNS, then enqueued_at, created_at
 * and updated_at): written out rather than read through the column names, which is a keyed look-up
 * by a different name for each of 24 columns of every row (2.4 million for a 100k-row import).
 */
export function newJobValues(j: NewJob): unknown[] {
  return [
    j.id,
    j.shot_id,
    j.project,
    j.episode,
    j.shot,
    j.stage,
    j.take,
    j.template_id,
    j.template_name,
    j.params_json,
    j.inputs_json,
    j.seed,
    j.seed_pinned,
    j.priority,
    j.rank,
    j.state,
    j.state_reason,
    j.max_attempts,
    j.depends_on,
    j.vram_gb,
    j.tags_json,
    j.timeout_s,
    j.imported_by,
    j.due_at,
    j.now,
    j.now,
    j.now,
  ];
}

/**
 * insertJob for many jobs (an import): a few hundred rows per statement (on PostgreSQL a few
 * thousand, as arrays), and each new job's first event row with it — the state it was written in,
 * its state_reason or else "imported", by its imported_by — inside the caller's transaction.
 * Returns the ids written, in the jobs' order; a job whose id exists already is skipped and writes
 * nothing, as with insertJob.
 */
export function insertJobs(db: Db, clock: Clock, jobs: readonly NewJob[]): string[] {
  const insert = { row: newJobValues, values: sqlInsertJobs, arrays: SQL_INSERT_JOBS_ARRAYS };
  if (db.dialect !== 'postgres') return insertJobsSqlite(db, clock, jobs, insert);
  const returned = new Set(
    insertRows<NewJob, { id: string }>(db, jobs, { ...insert, returning: true }).map((r) => r.id),
  );
  const written = jobs.filter((j) => returned.has(j.id));
  recordJobsCreated(
    db,
    clock,
    written.map((j) => ({ jobId: j.id, state: j.state, reason: j.state_reason ?? 'imported', actor: j.imported_by })),
  );
  return written.map((j) => j.id);
}

/**
 * The bulk insert on SQLite, without RETURNING (bulk.ts insertRowsAfterLast; for 100k jobs it was
 * about 0.25 s of CPU to say what is nearly always "all of them"): the creation events are made
 * from the rows past the last rowid by the store (recordStoredJobsCreated); when every job was
 * written the ids are the jobs' ids, else (ids stored before: a list imported again) they are read
 * back.
 */
function insertJobsSqlite(db: Db, clock: Clock, jobs: readonly NewJob[], insert: BulkInsert<NewJob>): string[] {
  const { afterRowid, written } = insertRowsAfterLast(db, 'jobs', jobs, insert);
  if (written > 0) recordStoredJobsCreated(db, clock, afterRowid);
  if (written === jobs.length) return jobs.map((j) => j.id);
  const ids = new Set(all<{ id: string }>(db, 'SELECT id FROM jobs WHERE rowid > ?', afterRowid).map((r) => r.id));
  return jobs.filter((j) => ids.has(j.id)).map((j) => j.id);
}

/** From this many new jobs on, PostgreSQL's planner is told the tables grew (refreshPlannerStats). */
export const BIG_WRITE_ROWS = 10_000;

/**
 * The statistics target of the ANALYZE after a big import: PostgreSQL samples 300 × the target
 * rows per table. What the planner lacked was the tables' size, which a small sample gives as well
 * (measured on 100k jobs: 100,008 rows against 100,000 at the default 100, the dispatcher's plan the
 * same) in 22 ms instead of 230–280 ms of a 100k-row import's commit. Autovacuum's own ANALYZE,
 * once a tenth of the rows have changed, measures them again at the server's target.
 */
const IMPORT_STATS_TARGET = 10;

/**
 * After a big import, on PostgreSQL: the planner's row counts for the tables an import fills are
 * refreshed at once (ANALYZE samples them). Until autovacuum gets to it, the planner would take a
 * table that grew from a few rows to 100k for the small one it last measured, and plan the
 * dispatcher's and the next preview's queries for that. The target is set for this one statement
 * (SET LOCAL in the statement's own implicit transaction): the session's other ANALYZEs keep the
 * server's. SQLite's planner keeps no such figures (the store never runs ANALYZE there): nothing to do.
 */
export function refreshPlannerStats(db: Db): void {
  if (db.dialect !== 'postgres') return;
  try {
    db.exec(`SET LOCAL default_statistics_target = ${IMPORT_STATS_TARGET}; ANALYZE jobs, job_events, shots`);
  } catch {
    // The import is committed already: figures that cannot be refreshed now are autovacuum's to
    // refresh, never a failed import (a lost connection shows at the next statement, as a hold).
  }
}

/** How many ids one existence lookup asks for (the last chunk is padded to it: one statement text). */
const IDS_PER_LOOKUP = 500;
const SQL_EXISTING_IDS = `SELECT id FROM jobs WHERE id IN (${paramList(IDS_PER_LOOKUP)})`;

/** The same lookup on PostgreSQL: the ids as one array parameter, however many. */
const SQL_EXISTING_IDS_ARRAY = 'SELECT id FROM jobs WHERE id = ANY(?::text[])';

/**
 * Which of these job ids are stored (jobExists for a whole import: one statement per 500 ids, on
 * PostgreSQL one per call — a round trip through the bridge each).
 */
export function existingJobIds(db: Db, ids: readonly string[]): Set<string> {
  const found = new Set<string>();
  if (db.dialect === 'postgres') {
    if (ids.length) for (const r of all<{ id: string }>(db, SQL_EXISTING_IDS_ARRAY, [ids])) found.add(r.id);
    return found;
  }
  inPadded(ids, IDS_PER_LOOKUP, (chunk) => {
    for (const r of all<{ id: string }>(db, SQL_EXISTING_IDS, chunk)) found.add(r.id);
  });
  return found;
}

/** How many shots one stored-stage lookup asks about (the last chunk padded to it: one statement text). */
const SHOTS_PER_STAGE_LOOKUP = 500;
const SQL_SHOTS_WITH_STAGE = `SELECT DISTINCT shot FROM jobs WHERE project = ? AND episode = ? AND stage = ?
  AND shot IN (${paramList(SHOTS_PER_STAGE_LOOKUP)})`;
const SQL_SHOTS_WITH_STAGE_ARRAY = `SELECT DISTINCT shot FROM jobs WHERE project = ? AND episode = ? AND stage = ?
  AND shot = ANY(?::text[])`;

/**
 * Which of these shots of one episode have `stage` stored (stageExists for a whole import's
 * dependencies: one statement per 500 shots, on PostgreSQL one for all — a 100k-row list of
 * two-stage shots asked 50,000 times, one round trip each there).
 */
export function shotsWithStage(
  db: Db,
  project: string,
  episode: string,
  stage: string,
  shots: readonly string[],
): Set<string> {
  const found = new Set<string>();
  if (shots.length === 0) return found;
  if (db.dialect === 'postgres') {
    for (const r of all<{ shot: string }>(db, SQL_SHOTS_WITH_STAGE_ARRAY, [project, episode, stage, shots]))
      found.add(r.shot);
    return found;
  }
  inPadded(shots, SHOTS_PER_STAGE_LOOKUP, (chunk) => {
    for (const r of all<{ shot: string }>(db, SQL_SHOTS_WITH_STAGE, [project, episode, stage, ...chunk]))
      found.add(r.shot);
  });
  return found;
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
 * the jobs_fair index (one probe per project, however many jobs each has queued). The recursion
 * ends by itself after the last project; the outer LIMIT bounds it (both stores read the CTE as
 * the outer query asks: PostgreSQL takes no LIMIT inside the recursive part).
 */
const SQL_QUEUED_PROJECTS = `WITH RECURSIVE p(name) AS (
    SELECT MIN(project) FROM jobs WHERE state = 'queued' AND priority = @priority AND rank = 0
    UNION ALL
    SELECT (SELECT MIN(project) FROM jobs WHERE state = 'queued' AND priority = @priority AND rank = 0 AND project > p.name)
      FROM p WHERE p.name IS NOT NULL)
  SELECT name FROM p WHERE name IS NOT NULL LIMIT 1000`;

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
 * What the walks of the queue read of a queued job: what its wait and its blocked mark need
 * (views/wait-explainer.ts, scheduler/blocked-jobs.ts) and where a walk is. Every column of the row
 * (43) took four times as long to read: a walk of 100k queued jobs 940 ms against 240.
 */
const QUEUED_JOB_FIELDS = [
  'id',
  'state',
  'enqueued_at',
  'priority',
  'stage',
  'vram_gb',
  'tags_json',
  'template_id',
  'params_json',
  'blocked',
  'unblocked_at',
  'wait_reason',
] as const satisfies readonly (keyof JobRow)[];
export type QueuedJob = Pick<JobRow, (typeof QUEUED_JOB_FIELDS)[number]> & { row_n: number };
const QUEUED_JOB_COLUMNS = ['rowid AS row_n', ...QUEUED_JOB_FIELDS].join(', ');

/**
 * Queued jobs in rowid order after a rowid. `state || ''` keeps SQLite off the state indexes (an
 * expression, as SQLite's unary `+` is, which PostgreSQL does not take on text): through them it
 * would read every queued job's entry and sort them by rowid (milliseconds at 100k queued, asked
 * once per look for new imports); walking the table from the rowid stops at the limit.
 */
const SQL_QUEUED_AFTER_ROWID = `SELECT ${QUEUED_JOB_COLUMNS} FROM jobs WHERE rowid > ? AND state || '' = 'queued' ORDER BY rowid LIMIT ?`;

/**
 * Queued jobs stored after `afterRowid` (the newest rowid seen): the jobs imported since, also by
 * another process. Only for that: from an older rowid the walk reads every job stored since,
 * finished ones included — a walk of the whole queue is queuedAfter's.
 */
export function queuedByRowid(db: Db, afterRowid: number, limit = 500): QueuedJob[] {
  return all<QueuedJob>(db, SQL_QUEUED_AFTER_ROWID, afterRowid, limit);
}

/** Where a walk of the queue has got to: the last job seen, in (enqueued_at, rowid) order. */
export interface QueueCursor {
  enqueuedAt: number;
  rowid: number;
}

/** Before every queued job. */
export const QUEUE_START: QueueCursor = { enqueuedAt: Number.MIN_SAFE_INTEGER, rowid: 0 };

/**
 * A walk of the queue reads queued rows only, off jobs_queued_age (state, enqueued_at), in two
 * steps: the rest of the cursor's enqueue time by rowid, then later enqueue times. A walk by
 * rowid read every job stored after its cursor, finished ones included — with 100k jobs in a farm's
 * history ~8 ms a chunk, a few chunks every probe interval for as long as the engine ran. One
 * row-value range, (enqueued_at, rowid) > (?, ?), is not enough: SQLite then bounds only
 * enqueued_at and reads through an import's jobs, which share one enqueue time.
 */
export const SQL_QUEUED_SAME_TIME = `SELECT ${QUEUED_JOB_COLUMNS} FROM jobs WHERE state = 'queued' AND enqueued_at = ? AND rowid > ? ORDER BY rowid LIMIT ?`;
export const SQL_QUEUED_LATER = `SELECT ${QUEUED_JOB_COLUMNS} FROM jobs WHERE state = 'queued' AND enqueued_at > ? ORDER BY enqueued_at, rowid LIMIT ?`;

/** Up to `limit` queued jobs after `after`, in (enqueued_at, rowid) order; the next cursor is queueCursorOf(the last). */
export function queuedAfter(db: Db, after: QueueCursor, limit = 500): QueuedJob[] {
  const same = all<QueuedJob>(db, SQL_QUEUED_SAME_TIME, after.enqueuedAt, after.rowid, limit);
  if (same.length >= limit) return same;
  return [...same, ...all<QueuedJob>(db, SQL_QUEUED_LATER, after.enqueuedAt, limit - same.length)];
}

export function queueCursorOf(row: Pick<QueuedJob, 'enqueued_at' | 'row_n'>): QueueCursor {
  return { enqueuedAt: row.enqueued_at, rowid: row.row_n };
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
      `UPDATE jobs SET blocked = @blocked, wait_reason = @reason, updated_at = @now,
      unblocked_at = CASE WHEN @blocked = 0 AND blocked = 1 THEN @now ELSE unblocked_at END
    WHERE id = @id AND state = 'queued' AND (blocked <> @blocked OR wait_reason IS DISTINCT FROM @reason)`,
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

/** The VRAM of each running job, by the workstation it runs on (one query for the whole farm). */
export function runningVramByInstance(db: Db): Map<string, number[]> {
  const by = new Map<string, number[]>();
  for (const r of all<{ instance_id: string; vram_gb: number }>(
    db,
    "SELECT instance_id, vram_gb FROM jobs WHERE state = 'running' AND instance_id IS NOT NULL",
  )) {
    const list = by.get(r.instance_id);
    if (list) list.push(r.vram_gb);
    else by.set(r.instance_id, [r.vram_gb]);
  }
  return by;
}

/** Jobs that move by themselves: running or waiting out a retry's backoff. */
export function movingCount(db: Db): number {
  return (
    one<{ n: number }>(db, "SELECT COUNT(*) AS n FROM jobs WHERE state IN ('running', 'failed_retryable')")?.n ?? 0
  );
}

/** What a claim needs of its job: its state, the attempts charged so far and when it was queued. */
export function claimFacts(db: Db, id: string): { state: JobState; attempts: number; enqueued_at: number } | undefined {
  return one<{ state: JobState; attempts: number; enqueued_at: number }>(
    db,
    'SELECT state, attempts, enqueued_at FROM jobs WHERE id = ?',
    id,
  );
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

// ─── The forecast's reads (forecast/forecaster.ts) ───────────────────────────────────────────────

/** An unfinished job as the forecast plays it forward (a running one's real start: attempt-store.ts openRuns). */
export interface ForecastJobRow {
  id: string;
  project: string;
  episode: string;
  shot: string;
  state: JobState;
  priority: number;
  rank: number;
  enqueued_at: number;
  template_id: number;
  params_json: string;
  vram_gb: number;
  tags_json: string;
  depends_on: string | null;
  due_at: number | null;
  instance_id: string | null;
}

/** Every job the farm still has to get through (BACKLOG_STATES: running included), by the jobs_runnable index's state prefix. */
export function forecastJobRows(db: Db): ForecastJobRow[] {
  return all<ForecastJobRow>(
    db,
    `SELECT id, project, episode, shot, state, priority, rank, enqueued_at, template_id, params_json, vram_gb, tags_json,
      depends_on, due_at, instance_id
      FROM jobs WHERE state IN (${BACKLOG_STATES.map((s) => `'${s}'`).join(', ')})`,
  );
}

const WAITING_LIST = BACKLOG_STATES.filter((s) => s !== 'running');
const WAITING_SQL = WAITING_LIST.map((s) => `'${s}'`).join(', ');
const FORECAST_COLUMNS = `id, project, episode, shot, state, priority, rank, enqueued_at, template_id, params_json, vram_gb,
  tags_json, depends_on, due_at, instance_id`;

/** The running jobs, as the forecast plays them (their slots' free times). */
export function forecastRunningRows(db: Db): ForecastJobRow[] {
  return all<ForecastJobRow>(db, `SELECT ${FORECAST_COLUMNS} FROM jobs WHERE state = 'running'`);
}

/**
 * The first `limit` waiting jobs of one project in its dispatch order (priority, rank, enqueue time):
 * the forecast's head. One walk of the jobs_runnable index per waiting state, each stopping at
 * `limit` (a single query over the three states sorts every waiting job of the project instead).
 */
export function forecastHeadRows(db: Db, project: string, limit: number): ForecastJobRow[] {
  const rows: ForecastJobRow[] = [];
  for (const state of WAITING_LIST)
    for (const r of all<ForecastJobRow>(
      db,
      `SELECT ${FORECAST_COLUMNS} FROM jobs WHERE state = ? AND project = ?
        ORDER BY priority DESC, rank, enqueued_at LIMIT ?`,
      state,
      project,
      limit,
    ))
      rows.push(r);
  rows.sort(
    (a, b) =>
      b.priority - a.priority ||
      a.rank - b.rank ||
      a.enqueued_at - b.enqueued_at ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  return rows.slice(0, limit);
}

/** Waiting jobs counted by what the forecast plays them by: group, priority, template, VRAM, tags, and whether they wait on another job. */
export interface ForecastBucketRow {
  project: string;
  episode: string;
  sequence: string;
  priority: number;
  template_id: number;
  vram_gb: number;
  tags_json: string;
  /** 1: pending on another job (played after the rest). */
  waits: number;
  n: number;
  first_enqueued: number;
  last_enqueued: number;
}

/** Every waiting job, aggregated: one row per bucket, never one per job (the forecast of a deep backlog, forecaster.ts). */
export function forecastBuckets(db: Db): ForecastBucketRow[] {
  return all<ForecastBucketRow>(
    db,
    `SELECT project, episode, ${SEQUENCE_SQL} AS sequence, priority, template_id, vram_gb, tags_json,
      CASE WHEN state = 'pending' AND depends_on IS NOT NULL THEN 1 ELSE 0 END AS waits,
      COUNT(*) AS n, MIN(enqueued_at) AS first_enqueued, MAX(enqueued_at) AS last_enqueued
      FROM jobs WHERE state IN (${WAITING_SQL}) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`,
  ).map((r) => ({
    ...r,
    n: Number(r.n),
    waits: Number(r.waits),
    first_enqueued: Number(r.first_enqueued),
    last_enqueued: Number(r.last_enqueued),
  }));
}

/** One group's waiting jobs (a late group's bump, forecaster.ts): ids and their order. */
export function groupWaitingJobs(
  db: Db,
  project: string,
  episode: string,
  sequence: string | null,
): { id: string; priority: number; rank: number }[] {
  return all<{ id: string; priority: number; rank: number }>(
    db,
    `SELECT id, priority, rank FROM jobs WHERE project = ? AND episode = ? AND state IN ('queued', 'pending', 'failed_retryable')
      ${sequence === null ? '' : `AND ${SEQUENCE_SQL} = ?`}`,
    ...(sequence === null ? [project, episode] : [project, episode, sequence]),
  );
}

/** One episode's jobs counted per sequence and state, with their latest finish and earliest due time. */
export interface GroupCountRow {
  sequence: string;
  state: JobState;
  n: number;
  last_finished: number | null;
  first_due: number | null;
}

/** Counts of one episode (by the (project, episode, …) unique index), per sequence and state. */
export function episodeCounts(db: Db, project: string, episode: string): GroupCountRow[] {
  return all<GroupCountRow>(
    db,
    `SELECT ${SEQUENCE_SQL} AS sequence, state, COUNT(*) AS n, MAX(finished_at) AS last_finished, MIN(due_at) AS first_due
      FROM jobs WHERE project = ? AND episode = ? GROUP BY 1, 2`,
    project,
    episode,
  );
}

/** The forecast's late marks (forecast_late): which groups were last found late, since when. */
export function lateGroups(db: Db): Map<string, number> {
  return new Map(
    all<{ group_key: string; late_at: number }>(db, 'SELECT group_key, late_at FROM forecast_late').map((r) => [
      r.group_key,
      r.late_at,
    ]),
  );
}

/** Marks a group late; false when it was already (then no event goes out again). */
export function markGroupLate(db: Db, key: string, at: number): boolean {
  return (
    run(db, 'INSERT INTO forecast_late (group_key, late_at) VALUES (?, ?) ON CONFLICT (group_key) DO NOTHING', key, at)
      .changes === 1
  );
}

/** A group is on time again (or gone): its next turn late is news again. */
export function clearGroupLate(db: Db, key: string): void {
  run(db, 'DELETE FROM forecast_late WHERE group_key = ?', key);
}

/** The newest order change's id (0 when there is none). */
export function lastOrderChangeId(db: Db): number {
  return one<{ id: number | null }>(db, 'SELECT MAX(id) AS id FROM job_order_changes')?.id ?? 0;
}

/** The jobs bumped or moved in order-change rows (afterId, upToId], at most `limit` (notices/notice-inbox.ts). */
export function jobsReorderedBetween(db: Db, afterId: number, upToId: number, limit: number): string[] {
  return all<{ job_id: string }>(
    db,
    'SELECT DISTINCT job_id FROM job_order_changes WHERE id > ? AND id <= ? LIMIT ?',
    afterId,
    upToId,
    limit,
  ).map((r) => r.job_id);
}
