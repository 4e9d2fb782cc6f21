/**
 * Why a queued job is not on a cloud endpoint yet, in the burst policy's words (burst-policy.ts):
 * "cloud burst waits until the job has waited 10 min", "today's cloud budget is spent ($… of $…)".
 * jobs.why and every job view's waitReason add it to the LAN's reason, so a job that waits for the
 * endpoint is not silent about it. Null when no endpoint could take the job (disabled, unhealthy,
 * tags or VRAM that do not fit: the LAN's reason says it all) or when the policy would send it.
 */
import { PRIORITY_VALUE } from '../../../../shared/priorities.js';
import { lastQueuedAt } from '../../job-state.js';
import type { Db } from '../../store/database.js';
import type { JobRow } from '../../store/job-rows.js';
import type { WaitingJob } from '../worker-pool.js';
import type { InstanceRow } from '../../store/instance-store.js';
import { burstDecision } from './burst-policy.js';

/** What the cloud's wait needs of a job's row. */
export type BurstJob = WaitingJob;

/**
 * The one rule of a burst wait (issue 25): it counts only time the job could have been dispatched.
 * It counts from the later of when the job last became dispatchable (`jobSince`, jobDispatchableSince)
 * and when the farm last became able to dispatch (`farmSince`: the engine's start, a resume, the end
 * of a storage hold); 0 while either is null (the job blocked; the farm paused, stopped or holding on
 * its storage). A pause, a hold or a blocked hour therefore never sends jobs to the paid endpoint the
 * moment it ends.
 */
export function dispatchableWaitS(jobSince: number | null, farmSince: number | null, now: number): number {
  if (jobSince === null || farmSince === null) return 0;
  return Math.max(0, (now - Math.max(jobSince, farmSince)) / 1000);
}

/**
 * When this queued job last became dispatchable: the later of it last entering the queue (created,
 * released from hold, its dependency done, out of a retry's backoff, requeued by a stop — its event
 * rows, enqueued_at when it has none) and its blocked mark last being lifted (a workstation or an
 * endpoint that can take it appeared). Null while it is marked blocked.
 */
export function jobDispatchableSince(db: Db, job: BurstJob): number | null {
  if (job.blocked === 1) return null;
  return Math.max(lastQueuedAt(db, job.id) ?? job.enqueued_at, job.unblocked_at ?? 0);
}

/** May this endpoint take this job at all (its tags, its VRAM)? The dispatch pass asks it too. */
export function endpointFits(
  row: Pick<InstanceRow, 'tags_json' | 'vram_json'>,
  job: Pick<JobRow, 'tags_json' | 'vram_gb'>,
): boolean {
  const offered = JSON.parse(row.tags_json) as string[];
  if (!(JSON.parse(job.tags_json) as string[]).every((t) => offered.includes(t))) return false;
  const vram = row.vram_json ? (JSON.parse(row.vram_json) as { totalBytes: number }).totalBytes / 1024 ** 3 : null;
  return vram === null || job.vram_gb <= vram;
}

export interface BurstWaitFacts {
  /** The RunPod endpoints registered (any state: the usable ones are picked here). */
  endpoints: readonly Pick<InstanceRow, 'admin_state' | 'health' | 'tags_json' | 'vram_json'>[];
  burstAfterS: number;
  budgetUsdPerDay: number;
  /** Today's (UTC) cloud spend; read only when some job could go to an endpoint. */
  spentTodayUsd: () => number;
  now: number;
  /** When the farm last became able to dispatch (null: paused, stopped or holding on its storage). */
  dispatchingSince: number | null;
  /** When a job last became dispatchable (jobDispatchableSince; null while blocked). */
  jobSince: (job: BurstJob) => number | null;
}

/**
 * The cloud's words for a job, and whether a registered endpoint could ever take it (its tags and
 * VRAM fit one not disabled): such a job is not "blocked" when the LAN cannot take it — it waits
 * for the burst, and says so.
 */
export type BurstWait = ((job: BurstJob) => string | null) & { couldTake?: (job: BurstJob) => boolean };

export function burstWaitOf(f: BurstWaitFacts): BurstWait {
  const registered = f.endpoints.filter((e) => e.admin_state !== 'disabled');
  const couldTake = (job: BurstJob): boolean => registered.some((e) => endpointFits(e, job));
  const usable = f.endpoints.filter((e) => e.admin_state === 'active' && e.health !== 'unhealthy');
  if (usable.length === 0) return Object.assign(() => null, { couldTake });
  let spent: number | null = null;
  return Object.assign(
    (job: BurstJob) => {
      if (!usable.some((e) => endpointFits(e, job))) return null;
      spent ??= f.spentTodayUsd();
      const d = burstDecision({
        waitedS: dispatchableWaitS(f.jobSince(job), f.dispatchingSince, f.now),
        rush: job.priority >= PRIORITY_VALUE.rush,
        lanSlotFree: false,
        burstAfterS: f.burstAfterS,
        spentTodayUsd: spent,
        budgetUsdPerDay: f.budgetUsdPerDay,
      });
      return d.take ? null : d.reason;
    },
    { couldTake },
  );
}

/** The LAN's reason with the cloud's beside it (when there is one). */
export function withBurstWait(lan: string, cloud: string | null): string {
  return cloud === null ? lan : `${lan}; ${cloud}`;
}
