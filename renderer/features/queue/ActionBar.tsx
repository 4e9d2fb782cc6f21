/** Bulk actions on the selection; each enabled when `actionAllowed` says it applies to a selected job. */
import { useShallow } from 'zustand/react/shallow';
import { JOB_ACTIONS, actionAllowed, type JobAction, type JobState } from '../../../shared/job-states.js';
import { PRIORITIES, type Priority } from '../../../shared/priorities.js';
import { notYoursHint, ownSplit } from '../../lib/own-jobs.js';
import { useMay } from '../../store/use-may.js';
import { useApp } from '../../store/app-store.js';
import { ACTION_LABEL, selectedJobs } from '../../store/selection-slice.js';
import { QueueOrder } from './QueueFilters.js';
import { UndoLast } from './UndoLast.js';

const KEY_HINT: Partial<Record<JobAction, string>> = { moveToTop: 'T', hold: 'H', cancel: 'Del' };

export function ActionBar() {
  // The selection's distinct (state, importer) pairs: all the bar needs to enable its actions.
  const kinds = useApp(
    useShallow((s) => [...new Set(selectedJobs(s).map((j) => `${j.state}\n${j.importedBy ?? ''}`))]),
  );
  const count = useApp((s) => s.selected.size);
  const runAction = useApp((s) => s.runAction);
  const clear = useApp((s) => s.clearSelection);
  const session = useApp((s) => s.session);
  const { mayAct } = useMay();
  const jobs = kinds.map((k) => ({ state: k.split('\n')[0] as JobState, importedBy: k.split('\n')[1] }));
  // The state table says whether an action applies; the role whether this person may ever use it,
  // and, for an artist, on which jobs (their own: a selection of others' jobs only is not offered).
  const applicable = (a: JobAction) => jobs.filter((j) => actionAllowed(a, j.state));
  const notMine = (a: JobAction) => {
    const own = ownSplit(session, a, applicable(a));
    return own !== null && own.mine.length === 0 && own.others > 0;
  };
  const enabled = (a: JobAction) => mayAct(a) && applicable(a).length > 0 && !notMine(a);
  const hint = (a: JobAction) => (session && notMine(a) ? notYoursHint(session, a) : undefined);
  return (
    <div className={`actionbar${count ? '' : ' actionbar-idle'}`} data-testid="actionbar">
      <span className="selcount">{count ? `${count.toLocaleString()} selected` : 'No selection'}</span>
      <select
        className="input input-sm"
        value=""
        disabled={!enabled('bump')}
        onChange={(e) => e.target.value && void runAction('bump', { priority: e.target.value as Priority })}
        aria-label="Bump priority"
        title={hint('bump')}
        data-action="bump"
      >
        <option value="">Bump to…</option>
        {PRIORITIES.filter((p) => mayAct('bump', p)).map((p) => (
          <option key={p} value={p}>
            {p}
          </option>
        ))}
      </select>
      {JOB_ACTIONS.filter((a) => a !== 'bump' && a !== 'uncancel').map((a) => (
        <button
          type="button"
          key={a}
          className={`btn btn-sm${a === 'cancel' ? ' btn-danger-ghost' : ''}`}
          disabled={!enabled(a)}
          onClick={() => void runAction(a)}
          data-action={a}
          title={hint(a) ?? (KEY_HINT[a] ? `Shortcut: ${KEY_HINT[a]}` : undefined)}
        >
          {ACTION_LABEL[a]}
          {KEY_HINT[a] && <kbd>{KEY_HINT[a]}</kbd>}
        </button>
      ))}
      {count > 0 && (
        <button type="button" className="btn btn-sm btn-ghost" onClick={clear}>
          Clear
        </button>
      )}
      <span className="spacer" />
      <UndoLast />
      <QueueOrder />
    </div>
  );
}
