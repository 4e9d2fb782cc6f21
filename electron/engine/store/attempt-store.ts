/**
 * Every statement on the `attempts` table. An attempt is claimed (its row written and the job set
 * running) in one transaction before anything is sent to a server; its later updates are fenced on
 * the attempt still being the job's current one. Queries that show an attempt with its job's shot,
 * stage and take join `jobs` here (recovery, the timeline, the run log).
 */
import type { JobProgress } from '../../../shared/domain.js';
import type { TakeKey } from '../../../shared/take-key.js';
import type { Clock } from '../clock.js';
import { sqlLastQueuedAt, transitionJob, wrongState } from '../job-state.js';
import { inTransaction, type Db } from './database.js';
import { whereClause, type ExportFilter } from './export-filter.js';
import type { JobNameColumns } from './job-rows.js';
import { claimFacts, saveJobProgress } from './job-store.js';
import { sqlJoinShotOf } from './shot-store.js';
import { inChunks, paramList } from './bulk.js';
import { all, one, run } from './statements.js';
import { sqlJoinTemplateOf } from './template-store.js';

/**
 * An attempt is open ('claimed': written before anything was sent) until it ends. The schema also
 * allows 'posted', 'running' and 'collecting', which are no longer written: what the runner learns
 * meanwhile is kept in memory and written with the end (one commit instead of several).
 */
export type AttemptState = 'claimed' | 'ended';
export type AttemptOutcome = 'completed' | 'failed' | 'retry' | 'timeout' | 'lost' | 'cancelled' | 'requeued';

export interface AttemptRow {
  id: string;
  job_id: string;
  n: number;
  instance_id: string | null;
  instance_name: string | null;
  gpu_name: string | null;
  state: AttemptState;
  outcome: AttemptOutcome | null;
  error_class: string | null;
  reason: string | null;
  node_id: string | null;
  node_type: string | null;
  exception_type: string | null;
  /** An execution error's message and traceback, bounded (migration 0011). */
  exception_message: string | null;
  traceback: string | null;
  /** The server's log lines of a failed attempt's window, or why there are none (JSON, migration 0013). */
  server_log_json: string | null;
  client_id: string | null;
  prompt_number: number | null;
  queued_at: number;
  dispatched_at: number;
  started_at: number | null;
  finished_at: number | null;
  /** While its workstation does not answer: since when (its last answer), and when it is given up. */
  contact_lost_at: number | null;
  requeue_at: number | null;
  /** Closed stretches without an answer, `[[from, to], …]`, or null. */
  contact_gaps_json: string | null;
  /** A RunPod attempt's job id, stored the moment /run returned it (migration 0008). */
  runpod_job_id: string | null;
  billed_s: number | null;
  cost_usd: number | null;
}

export interface ClaimInput {
  jobId: string;
  attemptId: string;
  instanceId: string;
  instanceName: string;
  gpuName: string | null;
  vramAtDispatch: number | null;
  leaseMs: number;
}

/** Attempt numbers keep growing across operator retries and uncounted requeues (UNIQUE (job_id, n)). */
const SQL_NEXT_N = 'SELECT COALESCE(MAX(n), 0) + 1 AS n FROM attempts WHERE job_id = ?';
const SQL_INSERT = `INSERT INTO attempts (id, job_id, n, instance_id, instance_name, gpu_name, state, queued_at, dispatched_at, lease_until, vram_at_dispatch)
  VALUES (@id, @job_id, @n, @instance_id, @instance_name, @gpu_name, 'claimed', @queued_at, @now, @lease_until, @vram)`;

/**
 * Claim (SPEC §4.1): the attempt row and `queued → running`, committed together. Returns the
 * attempt number. The job's `attempts` counts those charged against its budget; `n` only grows.
 */
export function claimAttempt(db: Db, clock: Clock, c: ClaimInput): number {
  return inTransaction(db, () => {
    const job = claimFacts(db, c.jobId);
    if (!job) throw new Error(`job ${c.jobId} vanished before its claim`);
    // Claimed first by another engine of the farm (they all read the same queue head): refused
    // before anything is written — the door below refuses it too, after an attempt row to roll back.
    if (job.state !== 'queued') throw wrongState(c.jobId, job.state, ['queued']);
    const n = one<{ n: number }>(db, SQL_NEXT_N, c.jobId)?.n ?? 1;
    const now = clock.now();
    run(db, SQL_INSERT, {
      id: c.attemptId,
      job_id: c.jobId,
      n,
      instance_id: c.instanceId,
      instance_name: c.instanceName,
      gpu_name: c.gpuName,
      queued_at: job.enqueued_at,
      now,
      lease_until: now + c.leaseMs,
      vram: c.vramAtDispatch,
    });
    transitionJob(db, clock, {
      jobId: c.jobId,
      to: 'running',
      reason: `attempt ${n} on ${c.instanceName}`,
      actor: 'scheduler',
      expectFrom: ['queued'],
      attemptId: c.attemptId,
      patch: {
        attempts: job.attempts + 1,
        current_attempt_id: c.attemptId,
        instance_id: c.instanceId,
        started_at: now,
        finished_at: null,
        progress_node: null,
        progress_node_type: null,
        progress_value: null,
        progress_max: null,
        progress_at: null,
      },
    });
    return n;
  });
}

/**
 * What the runner learned while the attempt ran. Kept in memory and written with the attempt's
 * end: every synchronous commit costs, and recovery finds a prompt by the attempt id it carries
 * in extra_data, not by these.
 */
export interface AttemptFacts {
  /** When the server started the execution, if seen. */
  startedAt?: number | null;
  /** The execution number POST /prompt returned. */
  promptNumber?: number | null;
  /** The WebSocket client id the prompt was posted with. */
  clientId?: string | null;
  /** A RunPod attempt: the seconds RunPod billed and what they cost (cloud/runpod-cost.ts). */
  billedS?: number | null;
  costUsd?: number | null;
}

export interface AttemptEnd extends AttemptFacts {
  outcome: AttemptOutcome;
  errorClass?: string | null;
  reason?: string | null;
  nodeId?: string | null;
  nodeType?: string | null;
  exceptionType?: string | null;
  exceptionMessage?: string | null;
  traceback?: string | null;
}

/**
 * The open stretch without an answer, appended to the closed ones as `[contact_lost_at, @at]`.
 * Text operations both stores take (the JSON functions differ): the list is only ever written
 * here, compact, so it ends with `]` and is `[]` when empty. `@gap_end` is the end time as text
 * (PostgreSQL gives a parameter one type: the same `@at` is a BIGINT elsewhere in the statement).
 */
const SQL_GAPS_CLOSED = `CASE WHEN COALESCE(contact_gaps_json, '[]') = '[]' THEN '['
  ELSE substr(contact_gaps_json, 1, length(contact_gaps_json) - 1) || ',' END
  || '[' || contact_lost_at || ',' || @gap_end || ']]'`;

function atAndGapEnd(at: number): { at: number; gap_end: string } {
  return { at, gap_end: String(at) };
}

/** Ends an attempt row once; a second end of the same attempt changes nothing. A stretch without an answer ends with it. */
export function endAttempt(db: Db, clock: Clock, attemptId: string, e: AttemptEnd): boolean {
  return (
    run(
      db,
      `UPDATE attempts SET state = 'ended', outcome = @outcome, error_class = @error_class, reason = @reason, node_id = @node_id,
      node_type = @node_type, exception_type = @exception_type, exception_message = @exception_message, traceback = @traceback, finished_at = @at, lease_until = NULL,
      contact_gaps_json = CASE WHEN contact_lost_at IS NULL THEN contact_gaps_json ELSE ${SQL_GAPS_CLOSED} END,
      contact_lost_at = NULL, requeue_at = NULL,
      started_at = COALESCE(started_at, @started_at), prompt_number = COALESCE(prompt_number, @prompt_number),
      client_id = COALESCE(client_id, @client_id), billed_s = COALESCE(@billed_s, billed_s), cost_usd = COALESCE(@cost_usd, cost_usd)
      WHERE id = @id AND state <> 'ended'`,
      {
        id: attemptId,
        billed_s: e.billedS ?? null,
        cost_usd: e.costUsd ?? null,
        outcome: e.outcome,
        started_at: e.startedAt ?? null,
        prompt_number: e.promptNumber ?? null,
        client_id: e.clientId ?? null,
        error_class: e.errorClass ?? null,
        reason: e.reason ?? null,
        node_id: e.nodeId ?? null,
        node_type: e.nodeType ?? null,
        exception_type: e.exceptionType ?? null,
        exception_message: e.exceptionMessage ?? null,
        traceback: e.traceback ?? null,
        ...atAndGapEnd(clock.now()),
      },
    ).changes === 1
  );
}

/** Whether an attempt is still open (not ended: no engine has recorded its outcome or requeued it). */
export function attemptOpen(db: Db, attemptId: string): boolean {
  return one(db, `SELECT 1 AS ok FROM attempts WHERE id = ? AND state <> 'ended'`, attemptId) !== undefined;
}

/** An ended attempt's times, as the window of its server log (pools/comfy-lan/server-log.ts) reads them. */
export function attemptTimes(db: Db, attemptId: string): AttemptTimes | null {
  return (
    one<AttemptTimes>(
      db,
      `SELECT dispatched_at, started_at, finished_at FROM attempts WHERE id = ? AND state = 'ended'`,
      attemptId,
    ) ?? null
  );
}

export interface AttemptTimes {
  dispatched_at: number;
  started_at: number | null;
  finished_at: number | null;
}

/**
 * Adds the server's log to an ended attempt, once: written after its outcome (an addition, never
 * part of it), so a second write or a write to an attempt that is not ended changes nothing.
 */
export function keepServerLog(db: Db, attemptId: string, json: string): boolean {
  return (
    run(
      db,
      `UPDATE attempts SET server_log_json = @json WHERE id = @id AND state = 'ended' AND server_log_json IS NULL`,
      {
        id: attemptId,
        json,
      },
    ).changes === 1
  );
}

/** One open attempt whose workstation stopped answering. */
export interface ContactMark {
  attemptId: string;
  lostAt: number;
  requeueAt: number;
}

/**
 * These open attempts' workstation stopped answering (one commit for all of them: an incident, not
 * a step of every attempt). Returns the jobs whose view changed. An attempt already marked keeps
 * the start of its stretch and takes the new requeue time (a recovered attempt's grace restarts).
 */
export function markContactLost(db: Db, marks: readonly ContactMark[]): string[] {
  return inTransaction(db, () =>
    marks.flatMap((m) =>
      all<{ job_id: string }>(
        db,
        `UPDATE attempts SET contact_lost_at = COALESCE(contact_lost_at, @lostAt), requeue_at = @requeueAt
      WHERE id = @attemptId AND state <> 'ended' RETURNING job_id`,
        m,
      ).map((r) => r.job_id),
    ),
  );
}

/** The workstation answered again at `at`: the open stretches of these attempts close. Returns the jobs whose view changed. */
export function markContactBack(db: Db, attemptIds: readonly string[], at: number): string[] {
  return inTransaction(db, () =>
    attemptIds.flatMap((id) =>
      all<{ job_id: string }>(
        db,
        `UPDATE attempts SET contact_gaps_json = ${SQL_GAPS_CLOSED}, contact_lost_at = NULL, requeue_at = NULL
      WHERE id = @id AND contact_lost_at IS NOT NULL RETURNING job_id`,
        { id, gap_end: String(at) },
      ).map((r) => r.job_id),
    ),
  );
}

/** A job's open current attempt, as its live view needs it: the ETA's key, the node counts' key, lost contact. */
export interface OpenRunRow {
  job_id: string;
  attempt_id: string;
  template_id: number;
  params_json: string;
  gpu_name: string | null;
  instance_name: string | null;
  contact_lost_at: number | null;
  requeue_at: number | null;
  /** When the prompt really started on its GPU (null while it waits there, or is being sent). */
  started_at: number | null;
}

const OPEN_RUN_COLUMNS =
  'a.job_id, a.id AS attempt_id, j.template_id, j.params_json, a.gpu_name, a.instance_name, a.contact_lost_at, a.requeue_at, a.started_at';

/**
 * Every job's open current attempt (a few per workstation at most: the attempts_live index), in one
 * query. The job is joined by its id as well: joined by current_attempt_id alone (no index) SQLite
 * read every job ever stored and looked each one's attempt up — 190 ms with 100k in the history.
 */
export const SQL_OPEN_RUNS = `SELECT ${OPEN_RUN_COLUMNS} FROM attempts a
  JOIN jobs j ON j.id = a.job_id AND j.current_attempt_id = a.id WHERE a.state <> 'ended'`;

export function openRuns(db: Db): OpenRunRow[] {
  return all<OpenRunRow>(db, SQL_OPEN_RUNS);
}

/**
 * The open current attempts of these jobs only (by the jobs' primary key, a fixed few statement
 * texts: bulk.ts): a view of one running job reads its own row, not every open attempt of the farm
 * — at 200 GPUs with prefetch that was 400 rows, params included, for each announcement.
 */
export function openRunsOf(db: Db, jobIds: readonly string[]): OpenRunRow[] {
  const rows: OpenRunRow[] = [];
  inChunks(
    jobIds,
    1,
    (n) =>
      `SELECT ${OPEN_RUN_COLUMNS} FROM attempts a JOIN jobs j ON j.current_attempt_id = a.id
      WHERE j.id IN (${paramList(n)}) AND a.state <> 'ended'`,
    (chunk, sql) => rows.push(...all<OpenRunRow>(db, sql, ...chunk)),
  );
  return rows;
}

/**
 * Durable progress checkpoint, fenced on the attempt still being current. Not a state change.
 * The attempt's start time rides along in the same commit.
 */
export function saveProgress(
  db: Db,
  jobId: string,
  attemptId: string,
  p: JobProgress,
  startedAt: number | null,
): boolean {
  return inTransaction(db, () => {
    const saved = saveJobProgress(db, jobId, attemptId, p);
    if (saved && startedAt !== null)
      run(db, 'UPDATE attempts SET started_at = COALESCE(started_at, ?) WHERE id = ?', startedAt, attemptId);
    return saved;
  });
}

/** Attempts that were live when the engine last stopped: what recovery must reconcile. */
export function liveAttempts(db: Db): (AttemptRow & { job_state: string })[] {
  return all<AttemptRow & { job_state: string }>(
    db,
    `SELECT a.*, j.state AS job_state FROM attempts a JOIN jobs j ON j.current_attempt_id = a.id
    WHERE a.state <> 'ended' AND j.state = 'running' ORDER BY a.dispatched_at`,
  );
}

/** Attempts left open although their job moved on (e.g. cancelled while the engine was down). */
export function orphanAttempts(db: Db): AttemptRow[] {
  return all<AttemptRow>(
    db,
    `SELECT a.* FROM attempts a JOIN jobs j ON j.id = a.job_id
    WHERE a.state <> 'ended' AND (j.current_attempt_id IS NULL OR j.current_attempt_id <> a.id)`,
  );
}

/** A job's attempts, oldest first (its history in the Failures view). */
export function attemptsOfJob(db: Db, jobId: string): AttemptRow[] {
  return all<AttemptRow>(db, 'SELECT * FROM attempts WHERE job_id = ? ORDER BY n', jobId);
}

/** Where the job's last attempt ran and how it failed: the choice rule prefers it again, or avoids it after an OOM. */
export function previousAttempt(
  db: Db,
  jobId: string,
): { instance_id: string | null; error_class: string | null } | undefined {
  return one<{ instance_id: string | null; error_class: string | null }>(
    db,
    'SELECT instance_id, error_class FROM attempts WHERE job_id = ? ORDER BY n DESC LIMIT 1',
    jobId,
  );
}

/**
 * A job's attempts, where each went: read by the job alone. Asked for the job *and* the
 * workstation, SQLite (no statistics kept) chose the workstation's index and walked every attempt
 * that workstation ever ran — 9 ms a claim with 100k jobs in a farm's history, the engine's CPU
 * per job ~9 → ~17 ms. A job has a handful of attempts; the instance is matched here.
 */
export const SQL_ATTEMPT_PLACES = 'SELECT id, instance_id FROM attempts WHERE job_id = ?';

/** Was an earlier attempt of this job sent to this instance? (Then its prompt id may be there.) */
export function triedOnInstanceBefore(db: Db, jobId: string, instanceId: string, attemptId: string): boolean {
  return all<{ id: string; instance_id: string | null }>(db, SQL_ATTEMPT_PLACES, jobId).some(
    (a) => a.instance_id === instanceId && a.id !== attemptId,
  );
}

/** One recent ended attempt, as the run-time model reads it (forecast/run-samples.ts). */
export interface RecentRunRow {
  instance_id: string | null;
  gpu_name: string | null;
  template_id: number;
  params_json: string;
  outcome: string | null;
  /** When its job was queued for this attempt (work was waiting from then on). */
  queued_at: number | null;
  dispatched_at: number;
  started_at: number | null;
  finished_at: number | null;
}

/**
 * The latest ended attempts (at most `limit`, newest first by dispatch: the attempts_dispatched
 * index), with their job's template version and parameters: the run-time model's samples, and
 * what each workstation ran before (a checkpoint change is a cold start).
 */
export function recentRuns(db: Db, limit: number): RecentRunRow[] {
  return all<RecentRunRow>(
    db,
    `SELECT a.instance_id, a.gpu_name, j.template_id, j.params_json, a.outcome, a.queued_at, a.dispatched_at, a.started_at, a.finished_at
      FROM (SELECT job_id, instance_id, gpu_name, outcome, queued_at, dispatched_at, started_at, finished_at
            FROM attempts WHERE state = 'ended' ORDER BY dispatched_at DESC LIMIT @limit) a
      JOIN jobs j ON j.id = a.job_id`,
    { limit },
  );
}

/** A Gantt bar is labelled with its take's shot, stage and take. */
export interface TimelineRow extends Pick<TakeKey, 'shot' | 'stage' | 'take'> {
  id: string;
  job_id: string;
  instance_id: string | null;
  dispatched_at: number;
  started_at: number | null;
  finished_at: number | null;
  outcome: string | null;
  contact_lost_at: number | null;
  contact_gaps_json: string | null;
}

/** Attempts overlapping [from, to), at most 20,000, for the per-GPU Gantt. */
export function timelineRows(db: Db, from: number, to: number): TimelineRow[] {
  return all<TimelineRow>(
    db,
    `SELECT a.id, a.job_id, a.instance_id, a.dispatched_at, a.started_at, a.finished_at, a.outcome,
      a.contact_lost_at, a.contact_gaps_json, j.shot, j.stage, j.take
      FROM attempts a JOIN jobs j ON j.id = a.job_id
      WHERE a.dispatched_at < @to AND (a.finished_at IS NULL OR a.finished_at >= @from)
      ORDER BY a.dispatched_at LIMIT 20000`,
    { from, to },
  );
}

/** One run-log row: an attempt with its job's names, template version, seed and priority. */
export interface RunlogRow extends JobNameColumns {
  n: number;
  /** The shot's sequence, when its shot list named one (a CSV's Sequence column). */
  sequence: string | null;
  template_name: string;
  template_version: number;
  seed: number | null;
  priority: number;
  /** Who imported the job, and who last acted on it (its hold, bump, cancel…). */
  imported_by: string;
  last_action_by: string | null;
  instance_name: string | null;
  gpu_name: string | null;
  /** When the job last became eligible to run before this dispatch (see runlogQuery). */
  eligible_at: number;
  dispatched_at: number;
  started_at: number | null;
  finished_at: number | null;
  outcome: string | null;
  error_class: string | null;
  reason: string | null;
  node_id: string | null;
  node_type: string | null;
  /** VRAM not held by other processes on the GPU when the attempt was sent (what ComfyUI could use). */
  vram_at_dispatch: number | null;
  /** What a cloud attempt cost (null on the LAN). */
  cost_usd: number | null;
}

/**
 * When the job became eligible for an attempt: its last move into `queued` at or before the
 * dispatch (created queued, its dependency done, released from hold, a retry's backoff over, put
 * back after a lost workstation or a stop) — the event rows say when. Time held, waiting for a
 * dependency or in a backoff is not waiting for the farm. The attempt's own queued_at (the job's
 * enqueue time at the claim) stands in for jobs without such a row (rows written by hand).
 */
const SQL_ELIGIBLE_AT = `MAX(a.queued_at, COALESCE(${sqlLastQueuedAt('a.job_id', 'a.dispatched_at')}, a.queued_at))`;

/** The run-log export's query (streamed by exports/ from a read-only connection of its own). */
export function runlogQuery(filter: ExportFilter): { sql: string; params: Record<string, unknown> } {
  const where = whereClause(filter, {
    time: 'a.dispatched_at',
    project: 'j.project',
    episode: 'j.episode',
    outcome: "COALESCE(a.outcome, 'running')",
  });
  return {
    params: where.params,
    sql: `SELECT a.job_id, j.project, j.episode, json_extract(s.metadata_json, '$.sequence') AS sequence, j.shot, j.stage,
      j.take, a.n, j.template_name, t.version AS template_version, j.seed, j.priority, a.instance_name, a.gpu_name,
      ${SQL_ELIGIBLE_AT} AS eligible_at, a.dispatched_at, a.started_at, a.finished_at, a.outcome, a.error_class, a.reason,
      a.node_id, a.node_type, a.vram_at_dispatch, j.imported_by, j.last_action_by, a.cost_usd
      FROM attempts a JOIN jobs j ON j.id = a.job_id ${sqlJoinShotOf('j', 's')} ${sqlJoinTemplateOf('j', 't')}
      ${where.sql} ORDER BY a.dispatched_at, a.id`,
  };
}

/** Attempts dispatched since `from` that have ended, with their job's project: fair share's GPU time at start. */
export function endedRunsSince(db: Db, from: number): { project: string; at: number; ms: number }[] {
  return all<{ project: string; at: number; ms: number }>(
    db,
    `SELECT j.project AS project, a.finished_at AS at,
      a.finished_at - a.dispatched_at AS ms
    FROM attempts a JOIN jobs j ON j.id = a.job_id
    WHERE a.dispatched_at >= ? AND a.finished_at IS NOT NULL`,
    from,
  );
}

// ─── RunPod attempts (migration 0008) ────────────────────────────────────────────────────────────

/** Stores the RunPod job id /run returned, at once (recovery and /cancel go by it); only while open. */
export function setRunpodJobId(db: Db, attemptId: string, runpodJobId: string): boolean {
  return (
    run(db, "UPDATE attempts SET runpod_job_id = ? WHERE id = ? AND state <> 'ended'", runpodJobId, attemptId)
      .changes === 1
  );
}

export function runpodJobIdOf(db: Db, attemptId: string): string | null {
  return (
    one<{ runpod_job_id: string | null }>(db, 'SELECT runpod_job_id FROM attempts WHERE id = ?', attemptId)
      ?.runpod_job_id ?? null
  );
}

/** Every RunPod job id this farm ever sent to an endpoint (the "nothing of ours left" check). */
export function runpodJobIdsOn(db: Db, instanceId: string): string[] {
  return all<{ runpod_job_id: string }>(
    db,
    'SELECT runpod_job_id FROM attempts WHERE instance_id = ? AND runpod_job_id IS NOT NULL ORDER BY dispatched_at',
    instanceId,
  ).map((r) => r.runpod_job_id);
}

export interface SpendRow {
  project: string;
  episode: string;
  cost_usd: number;
  attempts: number;
}

/** What cloud attempts that ended since `from` cost, per project/episode (today's spend when `from` is midnight). */
export function spendSince(db: Db, from: number): SpendRow[] {
  return all<SpendRow>(
    db,
    `SELECT j.project, j.episode, SUM(a.cost_usd) AS cost_usd, COUNT(*) AS attempts FROM attempts a JOIN jobs j ON j.id = a.job_id
    WHERE a.cost_usd IS NOT NULL AND a.finished_at >= ? GROUP BY j.project, j.episode ORDER BY j.project, j.episode`,
    from,
  );
}

/** The total of spendSince, cheap enough for every dispatch decision (a partial index on cost rows). */
export function totalSpendSince(db: Db, from: number): number {
  return (
    one<{ c: number | null }>(
      db,
      'SELECT SUM(cost_usd) AS c FROM attempts WHERE cost_usd IS NOT NULL AND finished_at >= ?',
      from,
    )?.c ?? 0
  );
}
