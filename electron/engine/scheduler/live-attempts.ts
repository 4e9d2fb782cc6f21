/**
 * What each open attempt is doing right now (claimed, posted, running, collecting, and its prompt
 * number), held in memory while its runner follows it. The store keeps an attempt `claimed` until
 * its end — one commit per attempt end, not one per step — so the views merge this in instead.
 */
import { hasStarted, type AttemptPhase, type LiveAttempt } from '../../../shared/domain.js';

/** What views need: the live state of a job's running attempt, or of one attempt. */
export interface LivePhases {
  ofJob(jobId: string): LiveAttempt | null;
  ofAttempt(attemptId: string): LiveAttempt | null;
  /** Open attempts not started on their workstation yet. */
  notStarted(): number;
}

export class LiveAttempts implements LivePhases {
  private readonly byAttempt = new Map<string, LiveAttempt & { jobId: string }>();
  private readonly byJob = new Map<string, string>();

  /** A runner took this attempt (just claimed, or recovered after a restart). */
  begin(jobId: string, attemptId: string, promptNumber: number | null): void {
    this.byAttempt.set(attemptId, { id: attemptId, jobId, phase: 'claimed', promptNumber, startedAt: null });
    this.byJob.set(jobId, attemptId);
  }

  /** Moves the attempt to `phase` (`startedAt`: when the server started it, once known); true when that changed something a view shows. */
  advance(attemptId: string, phase: AttemptPhase, promptNumber?: number | null, startedAt?: number | null): boolean {
    const a = this.byAttempt.get(attemptId);
    if (!a) return false;
    const number = promptNumber ?? a.promptNumber;
    const started = a.startedAt ?? startedAt ?? null;
    if (a.phase === phase && a.promptNumber === number && a.startedAt === started) return false;
    a.phase = phase;
    a.promptNumber = number;
    a.startedAt = started;
    return true;
  }

  /** Open attempts whose prompt has not started on its workstation (claimed, or waiting there): the "next" count. */
  notStarted(): number {
    let n = 0;
    for (const a of this.byAttempt.values()) if (!hasStarted(a.phase)) n++;
    return n;
  }

  /** The runner is done (its end is in the store, or it was detached). */
  end(attemptId: string): void {
    const a = this.byAttempt.get(attemptId);
    if (!a) return;
    this.byAttempt.delete(attemptId);
    if (this.byJob.get(a.jobId) === attemptId) this.byJob.delete(a.jobId);
  }

  ofJob(jobId: string): LiveAttempt | null {
    const id = this.byJob.get(jobId);
    return id ? this.ofAttempt(id) : null;
  }

  ofAttempt(attemptId: string): LiveAttempt | null {
    const a = this.byAttempt.get(attemptId);
    return a ? { id: a.id, phase: a.phase, promptNumber: a.promptNumber, startedAt: a.startedAt } : null;
  }
}
