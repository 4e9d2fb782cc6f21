/**
 * Applies the permission policy (shared/people.ts) to one call before its handler runs: counts
 * how many of the targeted jobs someone else imported, and the highest priority asked for, and
 * throws the policy's sentence (`forbidden`) when the role may not. A bulk action on jobs of mixed
 * ownership is refused whole: nothing is done in part.
 */
import type { ApiInput, ApiMethod } from '../../../shared/api.js';
import { ShotfarmError } from '../../../shared/errors.js';
import { METHOD_CLASSES, type Caller, type SessionView } from '../../../shared/people.js';
import { mayUse, permission, type PermissionRequest } from '../../../shared/permissions.js';
import { PRIORITY_VALUE, type Priority } from '../../../shared/priorities.js';
import type { Db } from '../store/database.js';
import { importedByOthers } from '../store/job-store.js';

/** The jobs a method acts on, from its (already validated) input; null for methods on no jobs. */
function targetedJobs(method: ApiMethod, input: unknown): string[] | null {
  switch (method) {
    case 'jobs.bump': case 'jobs.moveToTop': case 'jobs.hold': case 'jobs.release': case 'jobs.cancel':
    case 'jobs.retry': case 'jobs.newTake': case 'jobs.uncancel':
      return (input as { ids: string[] }).ids;
    case 'jobs.restoreOrder':
      return (input as ApiInput<'jobs.restoreOrder'>).jobs.map((j) => j.id);
    default:
      return null;
  }
}

function askedPriority(method: ApiMethod, input: unknown): Priority | undefined {
  if (method === 'jobs.bump') return (input as ApiInput<'jobs.bump'>).priority;
  if (method === 'jobs.restoreOrder') {
    const asked = (input as ApiInput<'jobs.restoreOrder'>).jobs.map((j) => j.priority);
    return asked.sort((a, b) => PRIORITY_VALUE[b] - PRIORITY_VALUE[a])[0];
  }
  return undefined;
}

export function authorize(db: Db, caller: Caller, method: ApiMethod, input: unknown): void {
  if (caller.kind === 'local') return;
  const req: PermissionRequest = { role: caller.role, method };
  const jobs = targetedJobs(method, input);
  if (jobs) req.others = importedByOthers(db, jobs, caller.name);
  const priority = askedPriority(method, input);
  if (priority) req.priority = priority;
  const verdict = permission(req);
  if (!verdict.allowed) throw new ShotfarmError('forbidden', verdict.sentence);
}

/** `session.whoami`: the solo operator may do everything; a person what their role grants. */
export function sessionView(caller: Caller): SessionView {
  if (caller.kind === 'local') {
    return { name: 'local', role: 'admin', solo: true, may: Object.fromEntries(METHOD_CLASSES.map((c) => [c, 'all'])) as SessionView['may'] };
  }
  return {
    name: caller.name, role: caller.role, solo: false,
    may: Object.fromEntries(METHOD_CLASSES.map((c) => [c, mayUse(caller.role, c)])) as SessionView['may'],
  };
}
