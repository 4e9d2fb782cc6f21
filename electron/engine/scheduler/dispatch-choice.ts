/**
 * One decision pass's choice (SPEC §3): queued jobs, in dispatch order, to the instances that can
 * take them now — a free slot first; else, with prefetch, the place behind what runs there
 * (prefetch.ts); else a job ahead of a waiting prompt takes that prompt's place. A job that fits
 * nowhere now does not block the ones behind it, but no job behind it may be queued ahead of it
 * on a workstation it waits for. Works on the pass's snapshots (which it updates as it assigns);
 * touches nothing else — the scheduler claims, reserves and displaces.
 */
import type { JobRow } from '../store/job-rows.js';
import { displaces, mayWaitBehind } from './prefetch.js';
import { fitsNow, fitsWhenOneEnds, rankInstances, type InstanceSnapshot, type JobSnapshot } from './policy.js';

export interface ChoiceDeps {
  prefetch: boolean;
  /** Jobs whose claim from an earlier pass is not committed yet: skipped. */
  claiming: ReadonlySet<string>;
  /** The instances that have the nodes and models this job's workflow names (none: it waits, blocked-jobs.ts says why). */
  capable(job: JobRow): ReadonlySet<string>;
  snapshot(job: JobRow): JobSnapshot;
  /** Reservations: may this instance take this job? */
  allows(instanceId: string, job: JobSnapshot): boolean;
  /** The job fits nowhere now (reservations.ts may keep an instance for it). */
  unplaced(job: JobRow, snap: JobSnapshot): void;
}

export interface Assignment {
  job: JobRow;
  instanceId: string;
  snap: JobSnapshot;
}

export interface Displacement {
  instanceId: string;
  instanceName: string;
  /** The attempt of the prompt waiting there, asked to give its place. */
  attemptId: string;
}

export function freeInstances(snaps: ReadonlyMap<string, InstanceSnapshot>): InstanceSnapshot[] {
  return [...snaps.values()].filter((s) => s.running < s.maxConcurrency);
}

/** Full instances where one more prompt may wait on the server, or the waiting one be displaced. */
export function behindInstances(snaps: ReadonlyMap<string, InstanceSnapshot>, prefetch: boolean): InstanceSnapshot[] {
  return prefetch ? [...snaps.values()].filter((s) => s.running >= s.maxConcurrency && s.running > 0 && !s.waiting?.displacing) : [];
}

export function choose(snaps: ReadonlyMap<string, InstanceSnapshot>, queue: Iterable<JobRow>, d: ChoiceDeps): { assignments: Assignment[]; displacements: Displacement[] } {
  const free = () => freeInstances(snaps);
  const behind = () => behindInstances(snaps, d.prefetch);
  /** Instances a job ahead in the order waits for (it could not wait there itself): none behind it may take their waiting place. */
  const heldFor = new Set<string>();
  const assignments: Assignment[] = [];
  const displacements: Displacement[] = [];
  for (const job of queue) {
    // Jobs come in priority order: once none can take a slot or a waiting place, or displace a
    // lower-priority waiting prompt, none after it can either.
    const open = free().length > 0 || behind().some((s) => !s.waiting);
    if (!open && !behind().some((s) => s.waiting && job.priority > s.waiting.priority)) break;
    if (d.claiming.has(job.id)) continue;
    const capable = d.capable(job);
    if (capable.size === 0) continue;
    const snap = d.snapshot(job);
    const allowed = (s: InstanceSnapshot) => capable.has(s.id) && d.allows(s.id, snap);
    const fitting = free().filter((s) => allowed(s) && fitsNow(snap, s));
    if (fitting.length > 0) {
      const chosen = rankInstances(snap, fitting)[0] as InstanceSnapshot;
      chosen.running++;
      chosen.runningVramGb += snap.vramGb;
      chosen.largestRunningVramGb = Math.max(chosen.largestRunningVramGb, snap.vramGb);
      chosen.runningPriority = Math.min(chosen.runningPriority ?? snap.priority, snap.priority);
      chosen.serverQueue++;
      assignments.push({ job, instanceId: chosen.id, snap });
      continue;
    }
    const waitable = behind().filter((s) => allowed(s) && !heldFor.has(s.id) && mayWaitBehind(snap, s));
    if (waitable.length > 0) {
      const chosen = rankInstances(snap, waitable)[0] as InstanceSnapshot;
      chosen.waiting = { attemptId: '', priority: snap.priority, rank: job.rank, displacing: false };
      chosen.lastCheckpoint = snap.checkpoint;
      chosen.serverQueue++;
      assignments.push({ job, instanceId: chosen.id, snap });
      continue;
    }
    const displaced = behind().find((s) => allowed(s) && displaces(snap, s));
    if (displaced?.waiting) {
      // The waiting prompt leaves the server's queue; its end frees the place and passes again.
      displaced.waiting.displacing = true;
      displacements.push({ instanceId: displaced.id, instanceName: displaced.name, attemptId: displaced.waiting.attemptId });
      continue;
    }
    // It waits for a slot on these: a job behind it must not be queued there ahead of it.
    for (const s of behind()) if (allowed(s) && fitsWhenOneEnds(snap, s)) heldFor.add(s.id);
    d.unplaced(job, snap);
  }
  return { assignments, displacements };
}
