/**
 * The one claim path (SPEC §4 step 1, "write before you send"): an attempt row and the job's
 * `running` go into the tick's commit batch before any pool sends anything. A stale job (cancelled,
 * claimed elsewhere meanwhile) is only this claim's: null. The store itself failing (locked, full)
 * is the farm's: it is thrown, and the caller holds the farm (storage-hold.ts) for every kind.
 */
import { randomId } from '../../ids.js';
import { claimAttempt } from '../../store/attempt-store.js';
import type { JobRow } from '../../store/job-rows.js';
import type { BatchDeps, FarmDeps } from './deps.js';
import { storageFaultOf } from './storage-hold.js';
import { isFencedReport } from '../../job-state.js';
import { isLeaseLost } from './lease-fence.js';

/** Where the attempt goes, as its row records it. */
export interface ClaimTarget {
  instanceId: string;
  instanceName: string;
  gpuName: string | null;
  /** VRAM ComfyUI could use when dispatched (bytes); null when not probed (a cloud endpoint). */
  vramAtDispatch: number | null;
}

export type ClaimDeps = FarmDeps & BatchDeps & { log: (message: string) => void };

/** Claims one job for one workstation; its new attempt id, or null when the job went stale. Throws a storage fault. */
export async function claimJob(d: ClaimDeps, job: JobRow, to: ClaimTarget): Promise<string | null> {
  const attemptId = randomId();
  try {
    // The lease: twice the job's own timeout, so a runner that vanished is noticed without cutting a slow render short.
    await d.batch.add(() =>
      claimAttempt(d.db, d.clock, { jobId: job.id, attemptId, ...to, leaseMs: job.timeout_s * 1000 * 2 }),
    );
    return attemptId;
  } catch (err) {
    if (storageFaultOf(err)) throw err;
    // Another engine of the farm claimed it first (the state door refused: it is not queued any more), or
    // this engine's lease on the workstation moved on: nothing was stored, and nothing is wrong.
    if (isFencedReport(err) || isLeaseLost(err)) return null;
    d.log(`claim of ${job.id} on ${to.instanceName} failed: ${(err as Error).message}`);
    return null;
  }
}
