/**
 * What undoes a bulk action, worked out from the jobs as they were before it: a hold is undone by a
 * release, a release by a hold, a bump or a move to top by restoring each job's priority and rank,
 * a cancel of jobs that had not started by un-cancelling them. An undo stays possible while some of
 * those jobs are still where the action put them; the engine checks again when it is asked. Retry
 * and new take have none (a retry may be rendering at once; a new take is a new job). Pure.
 */
import type { JobView } from '../../shared/domain.js';
import { ACTION_STATES, UNCANCELLABLE_FROM, type JobAction } from '../../shared/job-states.js';
import type { SessionView } from '../../shared/people.js';
import type { Priority } from '../../shared/priorities.js';
import { notYoursHint, ownSplit } from './own-jobs.js';

export type UndoPlan =
  | { kind: 'release' | 'hold' | 'uncancel'; ids: string[] }
  | { kind: 'restoreOrder'; ids: string[]; order: { id: string; priority: Priority; rank: number }[] };

/** The action whose states say where an undo still applies, and whose class (the roles table) it is of. */
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

/**
 * The last answer per plan, with the jobs map it was worked out from: the toasts' and the action
 * bar's selectors ask on every store change (a status, a toast, a tick), and the jobs map is a new
 * object only when some job changed — so a plan of 100,000 ids is gone through once per change of jobs.
 */
const lastAnswer = new WeakMap<UndoPlan, { jobs: Readonly<Record<string, JobView>>; ids: string[] }>();

/** The plan's jobs the undo still applies to, by the states the page knows now (remembered for the same plan and jobs map: read it, never change it). */
export function undoableNow(plan: UndoPlan, jobs: Readonly<Record<string, JobView>>): string[] {
  const last = lastAnswer.get(plan);
  if (last?.jobs === jobs) return last.ids;
  const states = ACTION_STATES[UNDO_AS[plan.kind]];
  const ids = plan.ids.filter((id) => {
    const j = jobs[id];
    return j !== undefined && states.includes(j.state);
  });
  lastAnswer.set(plan, { jobs, ids });
  return ids;
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

/** What an undo on offer may do now, for the person signed in on the page. */
export type UndoVerdict =
  | { kind: 'send'; plan: UndoPlan; othersLeft: number }
  | { kind: 'gone' }
  | { kind: 'refused'; why: string };

/**
 * Whether and on which jobs the page may send an undo (the server decides again: authorize.ts). An
 * undo on offer belongs to the person who did the action (`by`: null when the page did not know who
 * it was yet): nobody else signed in on the same page may use it. It is of the class of the action
 * it undoes, under the same role rule: a role granted that class on its own jobs only (an artist)
 * undoes only the jobs they imported, the others left alone and said — never a whole refusal at the end.
 */
export function undoToSend(
  entry: { undo: UndoPlan; by: string | null },
  session: SessionView | null,
  jobs: Readonly<Record<string, JobView>>,
): UndoVerdict {
  if (entry.by !== null && session !== null && entry.by !== session.name)
    return { kind: 'refused', why: `that was ${entry.by}'s action: only ${entry.by} may undo it.` };
  const ids = undoableNow(entry.undo, jobs);
  if (ids.length === 0) return { kind: 'gone' };
  const action = UNDO_AS[entry.undo.kind];
  const own = ownSplit(
    session,
    action,
    ids.map((id) => jobs[id] as JobView),
  );
  if (own && session && own.mine.length === 0) return { kind: 'refused', why: notYoursHint(session, action) };
  return {
    kind: 'send',
    plan: own
      ? narrowed(
          entry.undo,
          own.mine.map((j) => j.id),
        )
      : narrowed(entry.undo, ids),
    othersLeft: own?.others ?? 0,
  };
}

/** The undos a person signed in on the page may still be offered: their own (and those made before the page knew who it was). */
export function undosOf<E extends { by: string | null }>(entries: readonly E[], session: SessionView | null): E[] {
  return entries.filter((e) => e.by === null || e.by === session?.name);
}
