/**
 * Scheduling policies (SPEC §3) as pure functions over plain snapshots: VRAM admission, instance
 * choice, reservations (the retry delay is pools/attempt/outcomes.ts). No I/O, no clock: the dispatcher feeds them what it knows now.
 */

import type { InstanceSnapshot } from '../pools/comfy-lan/instance-snapshot.js';
import { needGbOn, type JobVram } from './vram-need.js';

const GB = 1024 ** 3;

export type { InstanceSnapshot };

export interface JobSnapshot {
  id: string;
  /** PRIORITY_VALUE: higher runs first. */
  priority: number;
  /** The operator's order within a priority (move to top): lower runs first. */
  rank?: number;
  stage: string;
  vramGb: number;
  tags: readonly string[];
  checkpoint: string | null;
  previousInstanceId: string | null;
  /** The last attempt ran out of GPU memory there: prefer more usable VRAM, avoid that one. */
  oomOn: string | null;
  /** Learned per GPU model (scheduler/vram-need.ts); absent: `vramGb` everywhere. */
  vram?: JobVram;
}

/** What admission counts for the job there (scheduler/vram-need.ts needGbOn: override, learned, declared). */
export function vramNeedGb(job: JobSnapshot, inst: InstanceSnapshot): number {
  return needGbOn(job, inst);
}

/** Usable by ComfyUI: total minus what other processes hold. */
export function usableVramGb(inst: InstanceSnapshot): number {
  return inst.totalVramBytes === null ? 0 : (inst.totalVramBytes - inst.otherVramBytes) / GB;
}

/**
 * Could this instance ever run the job (tags and VRAM, ignoring what is running now)? A job that
 * fits no instance this way is waiting for hardware, not for a slot.
 */
export function couldFit(job: JobSnapshot, inst: InstanceSnapshot): boolean {
  if (!job.tags.every((t) => inst.tags.includes(t))) return false;
  if (inst.totalVramBytes === null) return false;
  const need = vramNeedGb(job, inst);
  return inst.totalVramBytes / GB >= need && usableVramGb(inst) >= need;
}

/** Can it take the job now: a free slot and, beside what already runs there, enough usable VRAM. */
export function fitsNow(job: JobSnapshot, inst: InstanceSnapshot): boolean {
  if (inst.running >= inst.maxConcurrency) return false;
  if (!couldFit(job, inst)) return false;
  return usableVramGb(inst) - inst.runningVramGb >= vramNeedGb(job, inst);
}

/**
 * Would the job fit there once one of the jobs running there ends — the largest, at best? On a
 * one-slot GPU that is the empty GPU; on a shared one, what the others still hold counts.
 */
export function fitsWhenOneEnds(job: JobSnapshot, inst: InstanceSnapshot): boolean {
  if (!couldFit(job, inst)) return false;
  if (inst.running === 0) return fitsNow(job, inst);
  const stillHeld = inst.runningVramGb - inst.largestRunningVramGb;
  return usableVramGb(inst) - stillHeld >= vramNeedGb(job, inst);
}

/**
 * Starved by its size (SPEC §3): the job could run on one of these instances, but no slot that
 * frees on any of them would fit it — smaller jobs refill each freed slot before it has room. Only
 * such a job gets an instance reserved; one that fits a freeing slot just waits for its turn.
 */
export function starvedBySize(job: JobSnapshot, instances: readonly InstanceSnapshot[]): boolean {
  const able = instances.filter((i) => couldFit(job, i));
  return able.length > 0 && !able.some((i) => fitsWhenOneEnds(job, i));
}

/** An instance kept free for a starving job. */
export interface Reservation {
  jobId: string;
  priority: number;
}

/**
 * Does a reservation keep this job off the instance? Never the reserved job itself, and never a
 * job of higher priority: a rush job takes the first slot that frees, reserved or not.
 */
export function reservationHolds(r: Reservation | null, job: Pick<JobSnapshot, 'id' | 'priority'>): boolean {
  return r !== null && r.jobId !== job.id && job.priority <= r.priority;
}

/**
 * Orders the instances that can take a job (SPEC §3): fewest prompts in the server's own queue,
 * then the one that last loaded the same checkpoint, then the previous attempt's instance, then
 * the faster GPU. After an out-of-memory failure, usable VRAM comes first and the instance that
 * ran out is last.
 */
export function rankInstances(job: JobSnapshot, candidates: readonly InstanceSnapshot[]): InstanceSnapshot[] {
  const score = (i: InstanceSnapshot): number[] => [
    job.oomOn === i.id ? 1 : 0,
    job.oomOn ? -usableVramGb(i) : 0,
    i.serverQueue + i.running,
    job.checkpoint !== null && i.lastCheckpoint === job.checkpoint ? 0 : 1,
    job.previousInstanceId === i.id ? 0 : 1,
    -i.speed,
  ];
  // Scored once per instance, not at each comparison: a pass ranks every workstation for each job it places.
  const scored = candidates.map((i) => ({ i, s: score(i) }));
  scored.sort((a, b) => {
    for (let k = 0; k < a.s.length; k++) if (a.s[k] !== b.s[k]) return (a.s[k] as number) - (b.s[k] as number);
    return a.i.name < b.i.name ? -1 : 1;
  });
  return scored.map((x) => x.i);
}
