/** A job state as a coloured pill; the colours are the theme's `--state-*` variables. */
import type { JobState } from '../../shared/job-states.js';
import { STATE_LABEL } from '../lib/format.js';

/** `next`: a running job whose prompt has not started on its workstation (it waits there behind the running one). */
export function StatePill({ state, next = false }: { state: JobState; next?: boolean }) {
  if (next) {
    return (
      <span
        className="pill state-next"
        data-state={state}
        data-phase="next"
        title="Sent to its workstation; waits there behind the prompt running now"
      >
        Next
      </span>
    );
  }
  return (
    <span className={`pill state-${state}`} data-state={state}>
      {STATE_LABEL[state]}
    </span>
  );
}
