/** The actions the state table allows for this job (shared/job-states.ts), through the same questions and undo as the queue's. */
import { JOB_ACTIONS, actionAllowed, type JobAction } from '../../../../shared/job-states.js';
import { PRIORITIES, type Priority } from '../../../../shared/priorities.js';
import type { JobView } from '../../../../shared/domain.js';
import { notYoursHint, ownSplit } from '../../../lib/own-jobs.js';
import { useMay } from '../../../store/use-may.js';
import { useApp } from '../../../store/app-store.js';
import { ACTION_LABEL } from '../../../store/selection-slice.js';

export function DrawerActions({ job }: { job: JobView }) {
  const run = useApp((s) => s.runActionOn);
  const act = (a: JobAction, opts?: { priority: Priority }) => void run([job.id], a, opts);
  const { mayAct } = useMay();
  const session = useApp((s) => s.session);
  // Another's job, for an artist: the actions show disabled, saying why, rather than refused on click.
  const hint = (a: JobAction) =>
    session && ownSplit(session, a, [job])?.mine.length === 0 ? notYoursHint(session, a) : undefined;
  const shown = JOB_ACTIONS.filter((a) => a !== 'bump' && a !== 'uncancel' && actionAllowed(a, job.state) && mayAct(a));
  const bumpable = actionAllowed('bump', job.state) && mayAct('bump');
  return (
    <div className="drawer-actions" data-testid="drawer-actions">
      {bumpable && (
        <select
          className="input input-sm"
          value=""
          aria-label="Bump priority"
          data-drawer-action="bump"
          disabled={hint('bump') !== undefined}
          title={hint('bump')}
          onChange={(e) => e.target.value && act('bump', { priority: e.target.value as Priority })}
        >
          <option value="">Priority…</option>
          {PRIORITIES.filter((p) => p !== job.priority && mayAct('bump', p)).map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      )}
      {shown.map((a) => (
        <button
          type="button"
          key={a}
          className={`btn btn-sm${a === 'cancel' ? ' btn-danger-ghost' : ''}`}
          onClick={() => act(a)}
          data-drawer-action={a}
          disabled={hint(a) !== undefined}
          title={hint(a)}
        >
          {ACTION_LABEL[a]}
        </button>
      ))}
      {shown.length === 0 && !bumpable && <span className="muted small">No action applies to a {job.state} job.</span>}
    </div>
  );
}
