/**
 * What the signed-in person may do, from `session.whoami` (the engine's permission policy, as
 * method-class flags): the UI hides or disables what the role may never use. A class granted for
 * one's own jobs stays enabled — the server decides per job, and its refusal sentence is shown.
 * Until the session is known (or on a server without it), everything shows, as before; the server
 * refuses whatever the role may not do either way. Which class a job action needs, and the rush
 * rule, are the method table's (shared/methods.ts), read through sessionMayCall.
 */
import type { JobAction } from '../../shared/job-states.js';
import type { MethodClass, SessionView } from '../../shared/people.js';
import { sessionMayCall } from '../../shared/permissions.js';
import type { Priority } from '../../shared/priorities.js';

export function mayClass(session: SessionView | null, cls: MethodClass): boolean {
  return session === null || session.may[cls] !== 'no';
}

/** A job action is the contract's `jobs.<action>` method. */
export function mayAction(session: SessionView | null, action: JobAction, priority?: Priority): boolean {
  return sessionMayCall(session, `jobs.${action}`, priority);
}
