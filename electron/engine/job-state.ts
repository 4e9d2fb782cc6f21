/**
 * THE one door through which a job's state changes (conventions §3). Each change is a guarded
 * update — it applies only if the job is still in the state the caller saw and, when fenced, still
 * on the same attempt — plus its event row, in one transaction. A refusal throws a JobStateError
 * that says which kind it is and changes nothing: a stale attempt (another attempt is current) and
 * a wrong state (the job moved on: cancelled, stopped) are fenced reports, the normal end of a late
 * runner; an illegal transition (the state table forbids the move) is a bug in the caller.
 */
import { ShotfarmError } from '../../shared/errors.js';
import { canTransition, type JobState } from '../../shared/job-states.js';
import { SYSTEM_ACTORS } from '../../shared/people.js';
import type { Clock } from './clock.js';
import { inTransaction, type Db } from './store/database.js';
import { insertRows, unnestRows, valueRows } from './store/bulk.js';
import { all, one, run } from './store/statements.js';

/** Columns a transition may set alongside the state. Keys are column names of `jobs`. */
export interface TransitionPatch {
  error_class?: string | null;
  attempts?: number;
  /** The attempt budget that decided this transition (the live retry_attempts setting). */
  max_attempts?: number;
  current_attempt_id?: string | null;
  instance_id?: string | null;
  not_before?: number | null;
  enqueued_at?: number;
  started_at?: number | null;
  finished_at?: number | null;
  priority?: number;
  rank?: number;
  progress_node?: string | null;
  progress_node_type?: string | null;
  progress_value?: number | null;
  progress_max?: number | null;
  progress_at?: number | null;
}

const PATCHABLE = new Set<keyof TransitionPatch>([
  'error_class',
  'attempts',
  'max_attempts',
  'current_attempt_id',
  'instance_id',
  'not_before',
  'enqueued_at',
  'started_at',
  'finished_at',
  'priority',
  'rank',
  'progress_node',
  'progress_node_type',
  'progress_value',
  'progress_max',
  'progress_at',
]);

export interface TransitionRequest {
  jobId: string;
  to: JobState;
  /** Words for the operator: why this happened. */
  reason: string | null;
  /** Who did it: 'operator', 'scheduler', 'import', 'recovery', 'cli'… */
  actor: string;
  /** When set, the job must currently be in one of these states (what the caller observed). */
  expectFrom?: readonly JobState[];
  /** Fencing: when set, the job's current attempt must be this one (null = no attempt). */
  expectAttemptId?: string | null;
  /** Attempt the event row refers to. */
  attemptId?: string | null;
  patch?: TransitionPatch;
}

/** Why the door refused: the first two are fenced reports, the last a bug. */
export type RefusalKind = 'stale_attempt' | 'wrong_state' | 'illegal_transition';

export class JobStateError extends ShotfarmError {
  constructor(
    readonly kind: RefusalKind,
    message: string,
    details: Record<string, unknown>,
  ) {
    super('conflict', message, { details: { ...details, refusal: kind } });
  }
}

/** The door's refusal of a job not in an expected state (a fenced report: another engine or request moved it first). */
export function wrongState(jobId: string, state: JobState, expectFrom: readonly JobState[]): JobStateError {
  return new JobStateError('wrong_state', `Job ${jobId} is ${state}, not ${expectFrom.join(' or ')}.`, {
    jobId,
    state,
  });
}

/** A late or duplicate report the fence turned away: the caller just stops (nothing changed). */
export function isFencedReport(err: unknown): boolean {
  return err instanceof JobStateError && err.kind !== 'illegal_transition';
}

/** A move the state table forbids: a bug in the code that asked for it, never an operator's race. */
export function isIllegalTransition(err: unknown): err is JobStateError {
  return err instanceof JobStateError && err.kind === 'illegal_transition';
}

export interface TransitionResult {
  jobId: string;
  from: JobState;
  to: JobState;
}

const INSERT_EVENT =
  'INSERT INTO job_events (job_id, attempt_id, from_state, to_state, reason, actor, at) VALUES (?, ?, ?, ?, ?, ?, ?)';

interface CurrentRow {
  state: JobState;
  current_attempt_id: string | null;
}

/**
 * Applies one transition inside the caller's transaction (or its own when there is none).
 * Throws ShotfarmError('conflict') when the move is illegal or the fence does not hold.
 */
export function transitionJob(db: Db, clock: Clock, req: TransitionRequest): TransitionResult {
  const apply = (): TransitionResult => {
    const cur = one<CurrentRow>(db, 'SELECT state, current_attempt_id FROM jobs WHERE id = ?', req.jobId);
    if (!cur) throw new ShotfarmError('not_found', `Job ${req.jobId} does not exist.`);
    if (req.expectFrom && !req.expectFrom.includes(cur.state)) throw wrongState(req.jobId, cur.state, req.expectFrom);
    if (req.expectAttemptId !== undefined && cur.current_attempt_id !== req.expectAttemptId) {
      throw new JobStateError(
        'stale_attempt',
        `Job ${req.jobId} has moved on to another attempt; this report is stale.`,
        {
          jobId: req.jobId,
          currentAttempt: cur.current_attempt_id,
          reported: req.expectAttemptId,
        },
      );
    }
    if (!canTransition(cur.state, req.to)) {
      throw new JobStateError('illegal_transition', `A ${cur.state} job cannot become ${req.to}.`, {
        jobId: req.jobId,
        from: cur.state,
        to: req.to,
      });
    }
    const now = clock.now();
    const sets = ['state = @to', 'state_reason = @reason', 'updated_at = @now'];
    // Who last acted on the job (the run log's last_action_by): a person or the solo operator, not the farm itself.
    if (!SYSTEM_ACTORS.has(req.actor)) sets.push('last_action_by = @actor');
    const params: Record<string, unknown> = {
      to: req.to,
      reason: req.reason,
      now,
      id: req.jobId,
      from: cur.state,
      attempt: cur.current_attempt_id,
      actor: req.actor,
    };
    for (const [key, value] of Object.entries(req.patch ?? {})) {
      if (!PATCHABLE.has(key as keyof TransitionPatch)) throw new Error(`not a patchable job column: ${key}`);
      sets.push(`${key} = @p_${key}`);
      params[`p_${key}`] = value;
    }
    // The guard repeats what was read: with BEGIN IMMEDIATE nobody can interleave, and the
    // changes() check below turns any future misuse into an error rather than a silent no-op.
    const info = run(
      db,
      `UPDATE jobs SET ${sets.join(', ')} WHERE id = @id AND state = @from AND current_attempt_id IS NOT DISTINCT FROM @attempt`,
      params,
    );
    if (info.changes !== 1)
      throw new JobStateError('wrong_state', `Job ${req.jobId} changed while being updated.`, { jobId: req.jobId });
    run(db, INSERT_EVENT, req.jobId, req.attemptId ?? null, cur.state, req.to, req.reason, req.actor, now);
    return { jobId: req.jobId, from: cur.state, to: req.to };
  };
  return db.inTransaction ? apply() : inTransaction(db, apply);
}

/**
 * When job `jobColumn` last moved into `queued` at or before `atColumn`, from its event rows (NULL
 * when it has none): the run log's eligible_at (store/attempt-store.ts). Column names are the
 * caller's SQL, never input. Here because job_events' SQL lives with the door that writes it.
 */
export function sqlLastQueuedAt(jobColumn: string, atColumn: string): string {
  return `(SELECT MAX(e.at) FROM job_events e WHERE e.job_id = ${jobColumn} AND e.to_state = 'queued' AND e.at <= ${atColumn})`;
}

/** When the job last moved into `queued` (created, released, requeued, out of its backoff), from its event rows; null when it has none. */
export function lastQueuedAt(db: Db, jobId: string): number | null {
  return (
    one<{ at: number | null }>(
      db,
      "SELECT MAX(at) AS at FROM job_events WHERE job_id = ? AND to_state = 'queued'",
      jobId,
    )?.at ?? null
  );
}

/** Records the creation of a job (no previous state) — the first row of its history. */
export function recordJobCreated(
  db: Db,
  clock: Clock,
  jobId: string,
  state: JobState,
  reason: string,
  actor: string,
): void {
  run(db, INSERT_EVENT, jobId, null, null, state, reason, actor, clock.now());
}

/** A new job's first event, for recordJobsCreated. */
export interface JobCreated {
  jobId: string;
  state: JobState;
  reason: string;
  actor: string;
}

const sqlInsertCreated = (rows: number): string =>
  `INSERT INTO job_events (job_id, attempt_id, from_state, to_state, reason, actor, at) VALUES ${valueRows(7, rows)}`;
/** The same rows on PostgreSQL, one array per column (bulk.ts unnestRows). */
const SQL_INSERT_CREATED_ARRAYS = `INSERT INTO job_events (job_id, attempt_id, from_state, to_state, reason, actor, at)
  ${unnestRows(['text', 'text', 'text', 'text', 'text', 'text', 'bigint'])}`;

/**
 * recordJobCreated for many new jobs (an import), a few hundred event rows per statement (on
 * PostgreSQL a few thousand, as arrays), inside the caller's transaction (the one that writes the
 * jobs). The rows go in job id order, not the order given: job ids are random-looking (UUIDv5), so
 * in the file's order each row's index entry (job_id, id) and its foreign key's look-up in the jobs'
 * primary key land anywhere in their b-trees; in id order they walk them from one end to the other
 * (100k events on SQLite: about 0.85 s of CPU in file order, 0.25 s sorted;
 * docs/performance.md#import-at-scale). The events of one import share one time, and each job's
 * history is found by its id, so nothing reads meaning into their relative order.
 */
export function recordJobsCreated(db: Db, clock: Clock, created: readonly JobCreated[]): void {
  const at = clock.now();
  const inIdOrder = [...created].sort((a, b) => (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0));
  // A new job's first event: no attempt, no state before it.
  insertRows(db, inIdOrder, {
    row: (c) => [c.jobId, null, null, c.state, c.reason, c.actor, at],
    values: sqlInsertCreated,
    arrays: SQL_INSERT_CREATED_ARRAYS,
  });
}

/**
 * An imported job's first event, from its stored row: the state it was written in, why it waits
 * (its state_reason) or else "imported", by whom it was imported.
 */
export const SQL_CREATED_FROM_ROWS = `INSERT INTO job_events (job_id, attempt_id, from_state, to_state, reason, actor, at)
  SELECT id, NULL, NULL, state, COALESCE(state_reason, 'imported'), imported_by, ? FROM jobs WHERE rowid > ?
  ORDER BY +id`;

/**
 * recordJobsCreated for the jobs a bulk insert on SQLite has just written — the rows past rowid
 * `afterRowid`, inside the caller's transaction, which holds the write lock (job-store.ts
 * insertJobs) — made by the store from the job rows themselves: each event's values are already
 * in its job's row, so they are not built and bound a second time (100k events were 700k bound
 * values, a sort in JS and an array per row). In job id order as recordJobsCreated writes them;
 * `+id` keeps the planner on the rowid range (sorted after), not a walk of every stored job's id.
 */
export function recordStoredJobsCreated(db: Db, clock: Clock, afterRowid: number): void {
  run(db, SQL_CREATED_FROM_ROWS, clock.now(), afterRowid);
}

/** One row of a job's history, as the door wrote it. */
export interface JobEventRow {
  id: number;
  attempt_id: string | null;
  from_state: JobState | null;
  to_state: JobState;
  reason: string | null;
  actor: string;
  at: number;
}

const SQL_EVENTS =
  'SELECT id, attempt_id, from_state, to_state, reason, actor, at FROM job_events WHERE job_id = ? ORDER BY id DESC LIMIT ?';

/** A job's history, newest first: the drawer shows it, and an undo checks nothing happened since. */
export function jobEvents(db: Db, jobId: string, limit: number): JobEventRow[] {
  return all<JobEventRow>(db, SQL_EVENTS, jobId, limit);
}

/** One state change as its event row records it (a creation has no `from`). */
export interface StateChange {
  id: number;
  from_state: JobState | null;
  to_state: JobState;
}

/**
 * The state changes recorded after event row `afterId`, oldest first, at most `limit`: what keeps
 * the farm's counters current without recounting the jobs — this process's changes and other
 * processes' (an import from the CLI) alike, since every change writes its row.
 */
export function stateChangesSince(db: Db, afterId: number, limit: number): StateChange[] {
  return all<StateChange>(
    db,
    'SELECT id, from_state, to_state FROM job_events WHERE id > ? ORDER BY id LIMIT ?',
    afterId,
    limit,
  );
}

/** The newest event row's id (0 when there is none). */
export function lastStateChangeId(db: Db): number {
  return one<{ id: number | null }>(db, 'SELECT MAX(id) AS id FROM job_events')?.id ?? 0;
}

/**
 * The jobs whose state changed in event rows (afterId, upToId], at most `limit`: the re-read that
 * stands behind the notices between engines (notices/notice-inbox.ts).
 */
export function jobsChangedBetween(db: Db, afterId: number, upToId: number, limit: number): string[] {
  return all<{ job_id: string }>(
    db,
    'SELECT DISTINCT job_id FROM job_events WHERE id > ? AND id <= ? LIMIT ?',
    afterId,
    upToId,
    limit,
  ).map((r) => r.job_id);
}
