/**
 * Applies the permission policy (shared/permissions.ts) to one call before its handler runs: counts
 * how many of the targeted jobs someone else imported, and the highest priority asked for (which
 * jobs and which priority: the method table, shared/methods.ts), and
 * throws the policy's sentence (`forbidden`) when the role may not. A bulk action on jobs of mixed
 * ownership is refused whole: nothing is done in part.
 */
import type { ApiMethod } from '../../../shared/api.js';
import { ShotfarmError } from '../../../shared/errors.js';
import { METHOD_CLASSES, type Caller, type SessionView } from '../../../shared/people.js';
import { mayUse, permission, rushRefusal, type PermissionRequest } from '../../../shared/permissions.js';
import { askedPriority, targetedJobs } from '../../../shared/methods.js';
import type { Db } from '../store/database.js';
import { importedByOthers } from '../store/job-store.js';

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

/**
 * The rush rule for what a call would create rather than what its input asks (an import's rows from
 * a JSON field or a CSV column, a new take of a rush job): known only to its handler, which calls
 * this before it stores anything — the same sentence as a bump's, `forbidden`, nothing done.
 */
export function authorizeCreatedRush(caller: Caller, createsRush: () => boolean): void {
  const refused = createdRushRefusal(caller, createsRush);
  if (refused) throw new ShotfarmError('forbidden', refused);
}

/** The sentence authorizeCreatedRush would refuse with, or null: what an import preview tells before the commit. */
export function createdRushRefusal(caller: Caller, createsRush: () => boolean): string | null {
  if (caller.kind === 'local') return null;
  const refused = rushRefusal(caller.role);
  return refused && createsRush() ? refused : null;
}

/** `session.whoami`: the solo operator may do everything; a person what their role grants. */
export function sessionView(caller: Caller): SessionView {
  if (caller.kind === 'local') {
    return {
      name: 'local',
      role: 'admin',
      solo: true,
      may: Object.fromEntries(METHOD_CLASSES.map((c) => [c, 'all'])) as SessionView['may'],
    };
  }
  return {
    name: caller.name,
    role: caller.role,
    solo: false,
    may: Object.fromEntries(METHOD_CLASSES.map((c) => [c, mayUse(caller.role, c)])) as SessionView['may'],
  };
}
