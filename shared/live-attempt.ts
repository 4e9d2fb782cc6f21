/**
 * What a running attempt is doing right now, and whether its workstation still answers — the parts
 * of the job, attempt, workstation and timeline views that change while a prompt runs. The words
 * for lost contact are here once, so the Studio UI and the CLI say the same thing.
 */

/**
 * Where an open attempt is: claimed (its row written, nothing sent yet), posted (the server queued
 * it), running (the server started it), collecting (finished there; outputs being stored).
 */
export const ATTEMPT_PHASES = ['claimed', 'posted', 'running', 'collecting'] as const;
export type AttemptPhase = (typeof ATTEMPT_PHASES)[number];

/** The running attempt of a job as the farm follows it (held in memory by the farm, not stored per step). */
export interface LiveAttempt {
  id: string;
  phase: AttemptPhase;
  /** The number POST /prompt returned (ComfyUI's queue number); null until posted. */
  promptNumber: number | null;
  /** When the server started it (its `execution_start`, or first seen running); null before. */
  startedAt: number | null;
}

/**
 * Has the prompt started on its workstation? Claimed or posted, it has not: it waits there behind
 * the running prompt (prefetch) or is about to be sent — the job is "next on gpu-02", not running.
 */
export function hasStarted(phase: AttemptPhase): boolean {
  return phase === 'running' || phase === 'collecting';
}

/**
 * A running job whose prompt has not started on its workstation (its view's live attempt says so):
 * counted and drawn as "next", its ETA after the running one's, interrupted by nothing — a stop or
 * a cancel takes it off. A view with no live attempt (no farm in this process) is taken as started.
 */
export function isNextUp(j: { state: string; attempt?: LiveAttempt | null }): boolean {
  return j.state === 'running' && !!j.attempt && !hasStarted(j.attempt.phase);
}

/**
 * The workstation of a running attempt stopped answering: since when (its last answer), and when
 * the attempt is given up and the job requeued unless it answers before.
 */
export interface LostContact {
  instanceName: string;
  lostAt: number;
  requeueAt: number;
}

/** A stretch of an attempt during which its workstation did not answer; `to` null while it lasts. */
export interface ContactGap {
  from: number;
  to: number | null;
}

function seconds(ms: number): number {
  return Math.max(0, Math.round(ms / 1000));
}

/** "lost contact with gpu-03 12 s ago; requeued in 48 s unless it answers", at `now`. */
export function lostContactWords(c: LostContact, now: number): string {
  const left = c.requeueAt - now;
  const then = left > 0 ? `requeued in ${seconds(left)} s unless it answers` : 'being requeued';
  return `lost contact with ${c.instanceName} ${seconds(now - c.lostAt)} s ago; ${then}`;
}
