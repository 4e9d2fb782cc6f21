/**
 * What happens to a job when its attempt ends: completed with its assets, retried after a
 * backoff, failed for good, killed for a timeout, or requeued. Each is one transaction — the
 * attempt row's end, the job's transition and its event row — fenced on the attempt still being
 * the job's current one, so a late or duplicate report changes nothing.
 */
import { ShotfarmError } from '../../../../shared/errors.js';
import type { Clock, RandomSource } from '../../clock.js';
import { transitionJob } from '../../job-state.js';
import { insertAsset, type AssetContext, type StoredAsset } from '../../store/asset-store.js';
import { endAttempt, type AttemptFacts, type AttemptOutcome } from '../../store/attempt-store.js';
import { inTransaction, type Db } from '../../store/database.js';
import {
  attemptBudget,
  dueRetries,
  pendingDependents,
  setDependentsReason,
  setEnqueuedAt,
} from '../../store/job-store.js';
import { fullJitterDelay } from '../../comfy/backoff.js';
import type { RetryPolicy } from '../../settings/farm-config.js';
import type { Classification } from './verdict.js';

/** SPEC §5: wait random(0, min(cap, base × 2^(attempt−1))) before attempt+1. */
export function retryDelayMs(attemptsMade: number, policy: RetryPolicy, random: () => number): number {
  return fullJitterDelay(Math.max(attemptsMade - 1, 0), { baseMs: policy.baseMs, capMs: policy.capMs }, random);
}

export interface OutcomeResult {
  /** Jobs whose state changed, for events. */
  changed: string[];
}

/** Collect's last step (SPEC §4.5): ledger rows and `completed` together; dependents become queued. */
export function completeJob(
  db: Db,
  clock: Clock,
  jobId: string,
  attemptId: string,
  assets: StoredAsset[],
  ctx: AssetContext,
  facts: AttemptFacts = {},
): OutcomeResult {
  return inTransaction(db, () => {
    const now = clock.now();
    transitionJob(db, clock, {
      jobId,
      to: 'completed',
      reason: `${assets.length} output(s) stored`,
      actor: 'scheduler',
      expectFrom: ['running'],
      expectAttemptId: attemptId,
      attemptId,
      patch: { finished_at: now, not_before: null, error_class: null },
    });
    for (const a of assets) insertAsset(db, jobId, attemptId, a, ctx, now);
    endAttempt(db, clock, attemptId, { ...facts, outcome: 'completed' });
    const changed = [jobId];
    for (const dep of pendingDependents(db, jobId)) {
      transitionJob(db, clock, {
        jobId: dep,
        to: 'queued',
        reason: 'its dependency completed',
        actor: 'scheduler',
        expectFrom: ['pending'],
      });
      setEnqueuedAt(db, dep, now);
      changed.push(dep);
    }
    return { changed };
  });
}

/** The attempts the job has made; it exists (the caller's attempt is its current one, fenced below). */
function budget(db: Db, jobId: string): { attempts: number; stage: string; take: number } {
  const b = attemptBudget(db, jobId);
  if (!b) throw new ShotfarmError('not_found', `Job ${jobId} does not exist.`);
  return b;
}

/**
 * Decides after a failed attempt (SPEC §5): permanent → failed_final; transient or OOM → retry
 * after a full-jitter backoff while attempts remain; timeout → retry or timeout_kill. The budget is
 * the live retry_attempts setting (`policy`), so a change applies to the next failure; the job row
 * records the budget that decided.
 */
export function failJob(
  db: Db,
  clock: Clock,
  random: RandomSource,
  jobId: string,
  attemptId: string,
  c: Classification,
  policy: RetryPolicy,
  facts: AttemptFacts = {},
): OutcomeResult & { retryAt: number | null } {
  return inTransaction(db, () => {
    const job = budget(db, jobId);
    const max = policy.maxAttempts;
    const left = job.attempts < max;
    const now = clock.now();
    let outcome: AttemptOutcome;
    let retryAt: number | null = null;
    const fence = { expectFrom: ['running'] as const, expectAttemptId: attemptId, attemptId, actor: 'scheduler' };
    if (c.errorClass === 'permanent') {
      outcome = 'failed';
      transitionJob(db, clock, {
        ...fence,
        jobId,
        to: 'failed_final',
        reason: c.reason,
        patch: { error_class: c.errorClass, finished_at: now, current_attempt_id: null },
      });
    } else if (left) {
      outcome = c.errorClass === 'timeout' ? 'timeout' : 'retry';
      retryAt = now + retryDelayMs(job.attempts, policy, random);
      transitionJob(db, clock, {
        ...fence,
        jobId,
        to: 'failed_retryable',
        reason: `${c.reason}; retry ${job.attempts + 1} of ${max} after a short wait`,
        patch: { error_class: c.errorClass, not_before: retryAt, current_attempt_id: null, max_attempts: max },
      });
    } else if (c.errorClass === 'timeout') {
      outcome = 'timeout';
      transitionJob(db, clock, {
        ...fence,
        jobId,
        to: 'timeout_kill',
        reason: `${c.reason}; no attempts left (${job.attempts} of ${max})`,
        patch: { error_class: c.errorClass, finished_at: now, current_attempt_id: null, max_attempts: max },
      });
    } else {
      outcome = 'failed';
      transitionJob(db, clock, {
        ...fence,
        jobId,
        to: 'failed_final',
        reason: `gave up after ${job.attempts} attempt${job.attempts === 1 ? '' : 's'}: ${c.reason}`,
        patch: { error_class: c.errorClass, finished_at: now, current_attempt_id: null, max_attempts: max },
      });
    }
    endAttempt(db, clock, attemptId, {
      ...facts,
      outcome,
      errorClass: c.errorClass,
      reason: c.reason,
      nodeId: c.nodeId,
      nodeType: c.nodeType,
      exceptionType: c.exceptionType,
      exceptionMessage: c.exceptionMessage ?? null,
      traceback: c.traceback ?? null,
    });
    if (retryAt === null) {
      // Dependents cannot run; say why they wait (a new take of this stage re-arms them).
      setDependentsReason(db, jobId, `its dependency ${job.stage} take ${job.take} failed; make a new take of it`, now);
    }
    return { changed: [jobId], retryAt };
  });
}

/** Back to the queue without counting the attempt against the job (stop farm, recovery of a never-posted claim). */
export function requeueJob(
  db: Db,
  clock: Clock,
  jobId: string,
  attemptId: string,
  reason: string,
  outcome: AttemptOutcome = 'requeued',
  facts: AttemptFacts = {},
): void {
  inTransaction(db, () => {
    const job = budget(db, jobId);
    transitionJob(db, clock, {
      jobId,
      to: 'queued',
      reason,
      actor: 'scheduler',
      expectFrom: ['running'],
      expectAttemptId: attemptId,
      attemptId,
      // An attempt whose prompt never started (taken back by a pause, displaced, never sent) leaves no
      // start behind: the job's stored start was its claim, and the drawer would say it started.
      patch: {
        current_attempt_id: null,
        attempts: Math.max(job.attempts - 1, 0),
        not_before: null,
        ...(facts.startedAt ? {} : { started_at: null }),
      },
    });
    endAttempt(db, clock, attemptId, { ...facts, outcome, reason });
  });
}

/** Retries whose backoff is over go back to the queue. Returns the ids moved. */
export function promoteDueRetries(db: Db, clock: Clock): string[] {
  const now = clock.now();
  const due = dueRetries(db, now);
  if (!due.length) return [];
  return inTransaction(db, () =>
    due.map((id) => {
      transitionJob(db, clock, {
        jobId: id,
        to: 'queued',
        reason: 'retrying',
        actor: 'scheduler',
        expectFrom: ['failed_retryable'],
        patch: { not_before: null },
      });
      return id;
    }),
  );
}
