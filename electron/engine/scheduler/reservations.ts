/**
 * No starvation by size (SPEC §3): a job too large for any slot that frees up — smaller jobs refill
 * each freed slot before it has room, which on a shared GPU can go on for ever — gets, once it has
 * waited `starvationMs`, one workstation kept free for it: jobs of its priority or lower are no
 * longer placed there, so the jobs running there drain and it starts.
 *
 * Nothing else gets a reservation. A job that fits a slot when one frees — every job, on one-slot
 * GPUs — waits for its turn in the queue's order instead, so a rush job imported onto a saturated
 * farm takes the first slot that frees; and no reservation ever holds back a job of higher
 * priority (policy.ts: reservationHolds). A reservation holds only the workstation its job can run
 * on, and ends as soon as that job could not run there (its VRAM taken by other processes, a tag
 * removed) or leaves the queue.
 */
import type { JobRow } from '../store/job-rows.js';
import {
  couldFit,
  fitsNow,
  rankInstances,
  reservationHolds,
  starvedBySize,
  type InstanceSnapshot,
  type JobSnapshot,
  type Reservation,
} from './policy.js';

export interface ReservationDeps {
  starvationMs: () => number;
  /** The job's row now (null when it no longer exists). */
  job: (id: string) => JobRow | null;
  snapshot: (job: JobRow) => JobSnapshot;
  /** Instances whose node list has everything this job needs. */
  capable: (job: JobRow) => ReadonlySet<string>;
  /** The longest-waiting queued jobs past the starvation time (a few, oldest first). */
  oldestWaiting: (now: number) => JobRow[];
  log: (message: string) => void;
  /**
   * Several engines: a reservation is recorded on the lease row before it holds (the others' `jobs
   * why` read it), and its end clears it. A new one is refused (false) when another engine already
   * keeps a workstation free for that job: the farm holds back one GPU per starved job, not one per engine.
   */
  record?: (instanceId: string, r: Reservation | null) => boolean;
}

export class Reservations {
  private readonly byInstance = new Map<string, Reservation>();
  private nextCheck = 0;

  constructor(private readonly d: ReservationDeps) {}

  on(instanceId: string): Reservation | null {
    return this.byInstance.get(instanceId) ?? null;
  }

  /** May this job be placed on this instance, as far as reservations go? */
  allows(instanceId: string, job: Pick<JobSnapshot, 'id' | 'priority'>): boolean {
    return !reservationHolds(this.on(instanceId), job);
  }

  /** The job started (anywhere): whatever was kept for it is free again. */
  started(jobId: string): void {
    for (const [id, r] of this.byInstance) if (r.jobId === jobId) this.end(id);
  }

  /**
   * Ends reservations whose job left the queue, or that no longer fit the instance (or whose
   * instance cannot take work now). `snaps` are the dispatchable instances.
   */
  prune(snaps: ReadonlyMap<string, InstanceSnapshot>): void {
    for (const [instanceId, r] of this.byInstance) {
      const job = this.d.job(r.jobId);
      const inst = snaps.get(instanceId);
      if (
        job?.state !== 'queued' ||
        !inst ||
        !couldFit(this.d.snapshot(job), inst) ||
        !this.d.capable(job).has(instanceId)
      ) {
        this.end(instanceId);
      }
    }
  }

  private end(instanceId: string): void {
    this.byInstance.delete(instanceId);
    this.d.record?.(instanceId, null);
  }

  /** The age scan (scan) runs at most every quarter of the starvation time, between 0.25 and 5 s. */
  scanDue(now: number): boolean {
    if (now < this.nextCheck) return false;
    this.nextCheck = now + Math.max(250, Math.min(5_000, this.d.starvationMs() / 4));
    return true;
  }

  /**
   * Jobs that waited too long are found by age, not by queue order: the queue's head may be taking
   * every free slot, which is exactly how a large job starves.
   */
  scan(now: number, snaps: ReadonlyMap<string, InstanceSnapshot>): void {
    for (const job of this.d.oldestWaiting(now)) {
      const capable = this.d.capable(job);
      if (capable.size === 0) continue;
      const snap = this.d.snapshot(job);
      if (![...snaps.values()].some((s) => capable.has(s.id) && fitsNow(snap, s))) this.consider(job, snap, snaps, now);
    }
  }

  /**
   * A job that fits nowhere now: reserve the best instance for it if it has waited long enough and
   * is starved by its size. `snaps` are the dispatchable instances as this pass has filled them.
   */
  consider(job: JobRow, snap: JobSnapshot, snaps: ReadonlyMap<string, InstanceSnapshot>, now: number): void {
    const waited = now - job.enqueued_at;
    if (waited < this.d.starvationMs() || [...this.byInstance.values()].some((r) => r.jobId === job.id)) return;
    const capable = this.d.capable(job);
    const able = [...snaps.values()].filter((s) => capable.has(s.id));
    if (!starvedBySize(snap, able)) return;
    const best = rankInstances(
      snap,
      able.filter((s) => couldFit(snap, s) && !this.byInstance.has(s.id)),
    )[0];
    if (!best) return;
    const r = { jobId: job.id, priority: job.priority };
    // Kept free elsewhere on the farm already: that engine's GPU drains for it; asked again at the next scan.
    if (this.d.record && !this.d.record(best.id, r)) return;
    this.byInstance.set(best.id, r);
    this.d.log(
      `reserving ${best.name} for job ${job.id} (waiting ${Math.round(waited / 1000)} s; too large for the slots that free up)`,
    );
  }
}
