/** One failed job: where it belongs (project / episode / shot · stage · take), its state and attempts, retry / new take; expand for its attempts. */
import { useState } from 'react';
import type { FailedJobView } from '../../../shared/domain.js';
import { actionAllowed } from '../../../shared/job-states.js';
import { StatePill } from '../../components/StatePill.js';
import { dateTime } from '../../lib/format.js';
import { notYoursHint, ownSplit } from '../../lib/own-jobs.js';
import { useApp } from '../../store/app-store.js';
import { useMay } from '../../store/use-may.js';
import { AttemptsTable } from './AttemptsTable.js';
import type { FailureActions } from './use-failure-actions.js';

export function FailedJobLine({ job, actions }: { job: FailedJobView; actions: FailureActions }) {
  const [open, setOpen] = useState(false);
  const superseded = job.supersededByTake !== null;
  const { mayAct } = useMay();
  const session = useApp((s) => s.session);
  const notMine = (a: 'retry' | 'newTake') =>
    session && ownSplit(session, a, [job])?.mine.length === 0 ? notYoursHint(session, a) : undefined;
  return (
    <div
      className={`failure-job${open ? ' open' : ''}${superseded ? ' failure-job-superseded' : ''}`}
      data-job-id={job.id}
      data-shot={job.shot}
      data-project={job.project}
      data-episode={job.episode}
      data-superseded={superseded ? 'yes' : 'no'}
    >
      <div className="failure-job-line" onClick={() => setOpen(!open)}>
        <span className="chev">{open ? '▾' : '▸'}</span>
        {/* Where it belongs gives way first: the shot is what tells one failed line from the next. */}
        <span className="failure-path" title={`${job.project} / ${job.episode} / ${job.shot}`}>
          <span className="muted failure-where">
            {job.project} / {job.episode} /
          </span>{' '}
          <b className="failure-shot">{job.shot}</b>
        </span>
        <span>{job.stage}</span>
        <span className="muted">take {job.take}</span>
        <StatePill state={job.state} />
        {superseded && (
          <span className="pill pill-superseded" data-testid="superseded">
            superseded by take {job.supersededByTake}
          </span>
        )}
        <span className="muted small">
          {job.attempts} attempt{job.attempts === 1 ? '' : 's'} · {dateTime(job.finishedAt ?? job.updatedAt)}
        </span>
        {job.importedBy && (
          <span className="muted small" data-testid="imported-by">
            imported by {job.importedBy}
          </span>
        )}
        <span className="spacer" />
        <button
          type="button"
          className="btn btn-sm"
          disabled={!actionAllowed('retry', job.state) || !mayAct('retry') || notMine('retry') !== undefined}
          title={notMine('retry')}
          onClick={(e) => (e.stopPropagation(), actions.run('retry', [job]))}
          data-action="retry"
        >
          Retry
        </button>
        <button
          type="button"
          className="btn btn-sm"
          disabled={
            superseded || !actionAllowed('newTake', job.state) || !mayAct('newTake') || notMine('newTake') !== undefined
          }
          onClick={(e) => (e.stopPropagation(), actions.run('newTake', [job]))}
          data-action="newTake"
          title={superseded ? `Take ${job.supersededByTake} exists already` : notMine('newTake')}
        >
          New take
        </button>
      </div>
      {open && <AttemptsTable jobId={job.id} />}
    </div>
  );
}
