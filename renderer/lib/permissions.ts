/**
 * What the signed-in person may do, from `session.whoami` (the engine's permission policy, as
 * method-class flags): the UI hides or disables what the role may never use. A class granted for
 * one's own jobs stays enabled — the server decides per job, and its refusal sentence is shown.
 * Until the session is known (or on a server without it), everything shows, as before; the server
 * refuses whatever the role may not do either way.
 */
import type { JobAction } from '../../shared/job-states.js';
import type { MethodClass, SessionView } from '../../shared/people.js';
import type { Priority } from '../../shared/priorities.js';

const ACTION_CLASS: Readonly<Record<JobAction, MethodClass>> = {
  bump: 'priority', moveToTop: 'moveToTop', hold: 'jobActions', release: 'jobActions', cancel: 'jobActions',
  retry: 'jobActions', newTake: 'jobActions', uncancel: 'jobActions',
};

export function mayClass(session: SessionView | null, cls: MethodClass): boolean {
  return session === null || session.may[cls] !== 'no';
}

export function mayAction(session: SessionView | null, action: JobAction, priority?: Priority): boolean {
  if (!mayClass(session, ACTION_CLASS[action])) return false;
  return !(action === 'bump' && priority === 'rush' && !mayClass(session, 'rush'));
}
