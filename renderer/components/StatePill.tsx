/** A job state as a coloured pill; the colours are the theme's `--state-*` variables. */
import type { JobState } from '../../shared/job-states.js';
import { STATE_LABEL } from '../lib/format.js';

export function StatePill({ state }: { state: JobState }) {
  return (
    <span className={`pill state-${state}`} data-state={state}>
      {STATE_LABEL[state]}
    </span>
  );
}
