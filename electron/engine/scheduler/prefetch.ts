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
 * this GPU while another may free first), and it fits the workstation's VRAM budget on its own.
 */
export function mayWaitBehind(job: JobSnapshot, inst: InstanceSnapshot): boolean {
  if (inst.running < inst.maxConcurrency || inst.running === 0) return false;
  if (inst.waiting) return false;
  if (inst.runningPriority === null || inst.runningPriority === undefined || job.priority > inst.runningPriority) return false;
  return fitsNow(job, afterRunning(inst));
}

/**
 * Should `job` take the place of the prompt waiting there? Only a job ahead of the waiting one in
 * the dispatch order — of higher priority, or of the same priority moved ahead of it by an
 * operator (a lower rank) — which could run there, and only one displacement at a time.
 */
export function displaces(job: JobSnapshot, inst: InstanceSnapshot): boolean {
  const w = inst.waiting;
  if (!w || w.displacing) return false;
  const ahead = job.priority > w.priority || (job.priority === w.priority && (job.rank ?? 0) < w.rank);
  return ahead && fitsNow(job, afterRunning(inst));
}
