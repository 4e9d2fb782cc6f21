/**
 * The own-jobs rule as the page shows it: a role granted a job action's class on its own jobs only
 * (an artist) is offered the action on the jobs they imported — "only my N jobs" on a mixed
 * selection, a disabled control with the reason on another's — instead of a whole-selection
 * refusal at the end. The server still decides (electron/engine/auth/authorize.ts); this only
 * reads the session's grants and each job's `importedBy`. Pure, DOM-free.
 */
import type { JobView } from '../../shared/domain.js';
import type { JobAction } from '../../shared/job-states.js';
import { methodEntry } from '../../shared/methods.js';
import type { SessionView } from '../../shared/people.js';

export interface OwnSplit<J> {
  /** The jobs the person imported: the ones they may act on. */
  mine: J[];
  /** How many of the jobs someone else imported. */
  others: number;
}

/** Whether the session may `action` only its own jobs (else: all, or none — the class's flag says). */
export function ownOnly(session: SessionView | null, action: JobAction): boolean {
  return session !== null && !session.solo && session.may[methodEntry(`jobs.${action}`).class] === 'own';
}

/** Which of `jobs` the session may `action`, for a role limited to its own; null when the rule does not limit it. */
export function ownSplit<J extends Pick<JobView, 'importedBy'>>(
  session: SessionView | null,
  action: JobAction,
  jobs: readonly J[],
): OwnSplit<J> | null {
  if (!session || !ownOnly(session, action)) return null;
  const mine = jobs.filter((j) => j.importedBy === session.name);
  return { mine, others: jobs.length - mine.length };
}

/** The hover text of an action offered on no job of one's own: "artists may cancel only the jobs they imported". */
export function notYoursHint(session: SessionView, action: JobAction): string {
  const verb = methodEntry(`jobs.${action}`).verb ?? action;
  return `Imported by someone else: ${session.role}s may ${verb} only the jobs they imported.`;
}

/** "3 of the 5 selected jobs were imported by others and are left alone." */
export function othersLeftAlone(others: number, of: number): string {
  return `${others.toLocaleString()} of the ${of.toLocaleString()} selected jobs ${others === 1 ? 'was' : 'were'} imported by others and ${others === 1 ? 'is' : 'are'} left alone.`;
}
