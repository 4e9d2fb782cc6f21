/**
 * Named queries for attempts. An attempt is claimed (its row written and the job set running)
 * in one transaction before anything is sent to a server; its later updates are fenced on the
 * attempt still being the job's current one.
 */
import type { Clock } from '../clock.js';
import { transitionJob } from '../job-state.js';
import { inTransaction, type Db } from './database.js';
import { stmt } from './statements.js';

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
  client_id: string | null;
  prompt_number: number | null;
  queued_at: number;
  dispatched_at: number;
  started_at: number | null;
  finished_at: number | null;
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

const SQL_JOB_FOR_CLAIM = 'SELECT attempts, enqueued_at FROM jobs WHERE id = ?';
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
    const job = stmt(db, SQL_JOB_FOR_CLAIM).get(c.jobId) as { attempts: number; enqueued_at: number };
    const n = (stmt(db, SQL_NEXT_N).get(c.jobId) as { n: number }).n;
    const now = clock.now();
    stmt(db, SQL_INSERT).run({
      id: c.attemptId, job_id: c.jobId, n, instance_id: c.instanceId, instance_name: c.instanceName, gpu_name: c.gpuName,
      queued_at: job.enqueued_at, now, lease_until: now + c.leaseMs, vram: c.vramAtDispatch,
    });
    transitionJob(db, clock, {
      jobId: c.jobId, to: 'running', reason: `attempt ${n} on ${c.instanceName}`, actor: 'scheduler', expectFrom: ['queued'],
      attemptId: c.attemptId,
      patch: {
        attempts: job.attempts + 1, current_attempt_id: c.attemptId, instance_id: c.instanceId, started_at: now, finished_at: null,
        progress_node: null, progress_node_type: null, progress_value: null, progress_max: null, progress_at: null,
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
}

export interface AttemptEnd extends AttemptFacts {
  outcome: AttemptOutcome;
  errorClass?: string | null;
  reason?: string | null;
  nodeId?: string | null;
  nodeType?: string | null;
  exceptionType?: string | null;
}

/** Ends an attempt row once; a second end of the same attempt changes nothing. */
export function endAttempt(db: Db, clock: Clock, attemptId: string, e: AttemptEnd): boolean {
  return (
    stmt(db, `UPDATE attempts SET state = 'ended', outcome = @outcome, error_class = @error_class, reason = @reason, node_id = @node_id,
      node_type = @node_type, exception_type = @exception_type, finished_at = @now, lease_until = NULL,
      started_at = COALESCE(started_at, @started_at), prompt_number = COALESCE(prompt_number, @prompt_number),
      client_id = COALESCE(client_id, @client_id)
      WHERE id = @id AND state <> 'ended'`).run({
      id: attemptId, outcome: e.outcome, started_at: e.startedAt ?? null, prompt_number: e.promptNumber ?? null, client_id: e.clientId ?? null, error_class: e.errorClass ?? null, reason: e.reason ?? null, node_id: e.nodeId ?? null,
      node_type: e.nodeType ?? null, exception_type: e.exceptionType ?? null, now: clock.now(),
    }).changes === 1
  );
}

/**
 * Durable progress checkpoint, fenced on the attempt still being current. Not a state change.
 * The attempt's start time rides along in the same commit.
 */
export function saveProgress(
  db: Db, jobId: string, attemptId: string, p: { node: string | null; nodeType: string | null; value: number; max: number; at: number },
  startedAt: number | null,
): boolean {
  return inTransaction(db, () => {
    const saved = stmt(db, `UPDATE jobs SET progress_node = ?, progress_node_type = ?, progress_value = ?, progress_max = ?, progress_at = ?
      WHERE id = ? AND current_attempt_id = ? AND state = 'running'`).run(p.node, p.nodeType, p.value, p.max, p.at, jobId, attemptId).changes === 1;
    if (saved && startedAt !== null) stmt(db, 'UPDATE attempts SET started_at = COALESCE(started_at, ?) WHERE id = ?').run(startedAt, attemptId);
    return saved;
  });
}

/** Attempts that were live when the engine last stopped: what recovery must reconcile. */
export function liveAttempts(db: Db): (AttemptRow & { job_state: string })[] {
  return stmt(db, `SELECT a.*, j.state AS job_state FROM attempts a JOIN jobs j ON j.current_attempt_id = a.id
    WHERE a.state <> 'ended' AND j.state = 'running' ORDER BY a.dispatched_at`).all() as (AttemptRow & { job_state: string })[];
}

/** Attempts left open although their job moved on (e.g. cancelled while the engine was down). */
export function orphanAttempts(db: Db): AttemptRow[] {
  return stmt(db, `SELECT a.* FROM attempts a JOIN jobs j ON j.id = a.job_id
    WHERE a.state <> 'ended' AND (j.current_attempt_id IS NULL OR j.current_attempt_id <> a.id)`).all() as AttemptRow[];
}
