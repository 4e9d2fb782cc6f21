/**
 * What undoes a bulk action, worked out from the jobs as they were before it: a hold is undone by a
 * release, a release by a hold, a bump or a move to top by restoring each job's priority and rank,
 * a cancel of jobs that had not started by un-cancelling them. An undo stays possible while some of
 * those jobs are still where the action put them; the engine checks again when it is asked. Retry
 * and new take have none (a retry may be rendering at once; a new take is a new job). Pure.
 */
import type { JobView } from '../../shared/domain.js';
import { ACTION_STATES, UNCANCELLABLE_FROM, type JobAction } from '../../shared/job-states.js';
import type { Priority } from '../../shared/priorities.js';

export type UndoPlan =
  | { kind: 'release' | 'hold' | 'uncancel'; ids: string[] }
  | { kind: 'restoreOrder'; ids: string[]; order: { id: string; priority: Priority; rank: number }[] };

/** The action whose states say where an undo still applies. */
const UNDO_AS: Record<UndoPlan['kind'], JobAction> = {
  release: 'release',
  hold: 'hold',
  uncancel: 'uncancel',
  restoreOrder: 'bump',
};

/** The undo of `action` done to `changed` (ids the engine changed), given the jobs as they were before. */
export function undoFor(action: JobAction, before: readonly JobView[], changed: readonly string[]): UndoPlan | null {
  const did = new Set(changed);
  const jobs = before.filter((j) => did.has(j.id));
  if (jobs.length === 0) return null;
  switch (action) {
    case 'hold':
      return { kind: 'release', ids: jobs.map((j) => j.id) };
    case 'release':
      return { kind: 'hold', ids: jobs.map((j) => j.id) };
    case 'bump':
    case 'moveToTop':
      return {
        kind: 'restoreOrder',
        ids: jobs.map((j) => j.id),
        order: jobs.map((j) => ({ id: j.id, priority: j.priority, rank: j.rank })),
      };
    case 'cancel': {
      const waiting = jobs.filter((j) => UNCANCELLABLE_FROM.includes(j.state));
      return waiting.length ? { kind: 'uncancel', ids: waiting.map((j) => j.id) } : null;
    }
    default:
      return null;
  }
}

/** The plan's jobs the undo still applies to, by the states the page knows now. */
export function undoableNow(plan: UndoPlan, jobs: Readonly<Record<string, JobView>>): string[] {
  const states = ACTION_STATES[UNDO_AS[plan.kind]];
  return plan.ids.filter((id) => {
    const j = jobs[id];
    return j !== undefined && states.includes(j.state);
  });
}

/** The plan cut down to `ids` (what is still undoable). */
export function narrowed(plan: UndoPlan, ids: readonly string[]): UndoPlan {
  const keep = new Set(ids);
  return plan.kind === 'restoreOrder'
    ? { kind: plan.kind, ids: plan.ids.filter((id) => keep.has(id)), order: plan.order.filter((o) => keep.has(o.id)) }
    : { kind: plan.kind, ids: plan.ids.filter((id) => keep.has(id)) };
}

export const UNDO_WORDS: Record<UndoPlan['kind'], string> = {
  release: 'released again',
  hold: 'held again',
  uncancel: 'back where they were',
  restoreOrder: 'back in their old order',
};
