/**
 * The next prompt already waiting (prefetch): on a workstation whose slots are all taken, at most
 * one more claimed prompt is queued on the server behind the running one, so ComfyUI starts it
 * with its own ~1 ms gap instead of Shotfarm's round trip after each end. The server still runs one
 * prompt at a time: the waiting one never runs beside the running one, so it must fit the
 * workstation's VRAM on its own, as the running one did. Pure (table-tested).
 */
import { fitsNow, type InstanceSnapshot, type JobSnapshot } from './policy.js';

/** The workstation as it will be when what runs there now has ended: the waiting prompt's budget. */
function afterRunning(inst: InstanceSnapshot): InstanceSnapshot {
  return { ...inst, running: 0, runningVramGb: 0, largestRunningVramGb: 0 };
}

/**
 * May `job` wait on the server behind what runs there? Every slot is taken, nothing waits there
 * yet, the job is of the running prompts' priority or lower (a higher one must not be tied to
 * this GPU while another may free first: it takes the first slot that frees), and it fits the
 * workstation's VRAM budget on its own.
 */
export function mayWaitBehind(job: JobSnapshot, inst: InstanceSnapshot): boolean {
  if (inst.running < inst.maxConcurrency || inst.running === 0) return false;
  if (inst.waiting) return false;
  if (inst.runningPriority === null || inst.runningPriority === undefined || job.priority > inst.runningPriority)
    return false;
  return fitsNow(job, afterRunning(inst));
}

/**
 * When the place behind what runs there starts: the expected end of the first running prompt to
 * end (never before `now`); unknown (no run estimate yet) sorts after every known one.
 */
export function placeStartsAt(inst: InstanceSnapshot, now: number): number {
  return inst.freesAt === null || inst.freesAt === undefined ? Number.POSITIVE_INFINITY : Math.max(now, inst.freesAt);
}

/** Is `job` ahead of the prompt waiting there in the dispatch order (higher priority, or moved ahead of it by an operator: a lower rank)? */
export function aheadOfWaiting(job: JobSnapshot, inst: InstanceSnapshot): boolean {
  const w = inst.waiting;
  if (!w) return false;
  return job.priority > w.priority || (job.priority === w.priority && (job.rank ?? 0) < w.rank);
}

/**
 * Could `job` take the place of the prompt waiting there? Only a job ahead of the waiting one in
 * the dispatch order which could run there, and only one displacement at a time. Whether it
 * should is the choice's: when that place starts before any other the job fits (a waiting lower
 * job would otherwise start before it).
 */
export function displaces(job: JobSnapshot, inst: InstanceSnapshot): boolean {
  if (!inst.waiting || inst.waiting.displacing) return false;
  return aheadOfWaiting(job, inst) && fitsNow(job, afterRunning(inst));
}

/**
 * A job that takes the waiting place starting at `startsAt` (an infinite start: it waits for the
 * first slot that frees, wherever) is passed by a prompt of lower order waiting on another server
 * whose place starts at `other` — or too near to tell, as ends are estimates — unless that one is
 * displaced. The margin is a quarter of the wait, at least 100 ms; an unknown start is too near.
 */
export function startsTooSoon(other: number, startsAt: number, now: number): boolean {
  if (!Number.isFinite(startsAt) || !Number.isFinite(other)) return true;
  return other <= startsAt + Math.max(100, (startsAt - now) / 4);
}

/** A displacement there is asked for and not answered yet, and `job` could have asked it: it waits for that place. */
export function waitsForDisplaced(job: JobSnapshot, inst: InstanceSnapshot): boolean {
  return inst.waiting?.displacing === true && aheadOfWaiting(job, inst) && fitsNow(job, afterRunning(inst));
}
