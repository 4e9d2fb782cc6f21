/**
 * What the signed-in person may do, from `session.whoami` (the engine's permission policy, as
 * method-class flags): the UI hides or disables what the role may never use. A class granted for
 * one's own jobs stays enabled — the server decides per job, and its refusal sentence is shown.
 * Until the session is known (or on a server without it), everything shows, as before; the server
 * refuses whatever the role may not do either way. Which class a job action needs, and the rush
 * rule, are the method table's (shared/methods.ts), read through sessionMayCall.
 */
import type { JobAction } from '../../shared/job-states.js';
import { ROLES, type MethodClass, type SessionView } from '../../shared/people.js';
import { CLASS_WORDS, mayUse, sessionMayCall } from '../../shared/permissions.js';
import type { Priority } from '../../shared/priorities.js';

export function mayClass(session: SessionView | null, cls: MethodClass): boolean {
  return session === null || session.may[cls] !== 'no';
}

/** A job action is the contract's `jobs.<action>` method. */
export function mayAction(session: SessionView | null, action: JobAction, priority?: Priority): boolean {
  return sessionMayCall(session, `jobs.${action}`, priority);
}

/**
 * Why a control of this class is disabled, for its hover text ("Your role (artist) cannot register
 * templates."), or undefined when the role may use it (or the session is not known yet).
 */
export function refusalHint(session: SessionView | null, cls: MethodClass): string | undefined {
  if (mayClass(session, cls) || session === null) return undefined;
  const can = ROLES.filter((r) => mayUse(r, cls) === 'all').map((r) => `${r}s`);
  const who = can.length > 1 ? `${can.slice(0, -1).join(', ')} and ${can[can.length - 1]}` : (can[0] ?? 'nobody');
  return `Your role (${session.role}) cannot ${CLASS_WORDS[cls]}: ${who} can.`;
}

/** Whether the page is signed in as a person (a farm with people), not the solo operator: who imported what is worth showing. */
export function withPeople(session: SessionView | null): boolean {
  return session !== null && !session.solo;
}
