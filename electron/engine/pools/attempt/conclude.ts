/**
 * Concluding an attempt, for every pool (SPEC §4.5, §5): the runner reports what happened and
 * decides its verdict (verdict.ts) — collecting outputs, classifying a failure — and the engine
 * records it here, one way: every write through the farm's commit batch (durable before it is
 * announced), fenced by the state door. The rule around it is the same for every kind:
 * - a storage fault (a locked or full database, a full output disk) is not the attempt's end: it
 *   is thrown, and the runner holds the farm and takes the attempt up again after the retry;
 * - a report the door fences off (a stale attempt, a job that moved on) records nothing, silently;
 * - a report whose workstation lease moved on to another engine (lease-fence.ts) records nothing, said once;
 * - an illegal transition is a bug: logged loudly, and thrown in tests (failOnIllegalTransition);
 * - anything else is logged; nothing of the attempt was stored.
 */
import { isFencedReport, isIllegalTransition } from '../../job-state.js';
import { endAttempt, type AttemptFacts } from '../../store/attempt-store.js';
import type { ConcludeDeps } from './deps.js';
import { isLeaseLost } from './lease-fence.js';
import { completeJob, failJob, requeueJob } from './outcomes.js';
import { storageFaultOf } from './storage-hold.js';
import type { Verdict } from './verdict.js';

/** The attempt being concluded, as the records name it. */
export interface Concluding {
  jobId: string;
  attemptId: string;
  /** What the attempt learned (start, prompt number, cost…), written with its end. */
  facts: AttemptFacts;
}

/** Writes a verdict; the jobs whose stored state changed (the job, and dependents a completion queued). */
export async function recordVerdict(d: ConcludeDeps, a: Concluding, v: Verdict): Promise<readonly string[]> {
  const { db, clock, batch, random, config } = d;
  switch (v.kind) {
    case 'none':
      return [];
    case 'cancelled':
      await batch.add(() => endAttempt(db, clock, a.attemptId, { ...a.facts, outcome: 'cancelled', reason: v.reason }));
      return [a.jobId];
    case 'requeue':
      await batch.add(() => requeueJob(db, clock, a.jobId, a.attemptId, v.reason, 'requeued', a.facts));
      return [a.jobId];
    case 'failed':
      return (await batch.add(() => failJob(db, clock, random, a.jobId, a.attemptId, v.c, config.retry, a.facts)))
        .changed;
    case 'completed':
      return (await batch.add(() => completeJob(db, clock, a.jobId, a.attemptId, v.assets, v.ledger, a.facts))).changed;
  }
}

/**
 * Decides (the pool's part: `decide` may talk to the server, collect, classify) and records the
 * verdict under the rule above. What `decide` returned, with what changed; null when nothing was
 * recorded (fenced off, or a failure other than storage's).
 */
export async function conclude<T extends { verdict: Verdict }>(
  d: ConcludeDeps,
  a: Concluding,
  decide: () => Promise<T>,
): Promise<(T & { changed: readonly string[] }) | null> {
  let what = 'its end';
  try {
    const decided = await decide();
    what = decided.verdict.kind;
    return { ...decided, changed: await recordVerdict(d, a, decided.verdict) };
  } catch (err) {
    if (storageFaultOf(err)) throw err;
    if (isIllegalTransition(err)) {
      d.log(`ILLEGAL TRANSITION (a bug) ending attempt ${a.attemptId} of job ${a.jobId} as ${what}: ${err.message}`);
      if (d.config.failOnIllegalTransition)
        queueMicrotask(() => {
          throw err;
        });
    } else if (isLeaseLost(err)) {
      // Another engine took the workstation: it recovers this attempt from the server; said once.
      d.log(`attempt ${a.attemptId} of job ${a.jobId}: ${what} not recorded: ${err.message}; left to that engine`);
    } else if (!isFencedReport(err)) {
      d.log(`attempt ${a.attemptId} of job ${a.jobId}: recording ${what} failed: ${(err as Error).message}`);
    }
    return null;
  }
}
