/** What the signed-in person may do, in a component (lib/permissions.ts decides; this reads the session from the store). */
import type { JobAction } from '../../shared/job-states.js';
import type { MethodClass } from '../../shared/people.js';
import type { Priority } from '../../shared/priorities.js';
import { mayAction, mayClass, refusalHint } from '../lib/permissions.js';
import { useApp } from './app-store.js';

/**
 * `may('exports')` in a component: re-renders when the session arrives. `why('templates')` is the
 * hover text of a control the role cannot use (undefined when it can).
 */
export function useMay(): {
  may: (cls: MethodClass) => boolean;
  mayAct: (a: JobAction, p?: Priority) => boolean;
  why: (cls: MethodClass) => string | undefined;
} {
  const session = useApp((s) => s.session);
  return {
    may: (cls) => mayClass(session, cls),
    mayAct: (a, p) => mayAction(session, a, p),
    why: (cls) => refusalHint(session, cls),
  };
}
