/**
 * Failed jobs grouped by reason, the group with the most failures to handle first; expand for the
 * jobs (with their project and episode: a shot code repeats across episodes) and their attempt
 * history. A take superseded by a newer take is handled: hidden until "Show superseded takes".
 */
import { useState } from 'react';
import type { FailedJobView, FailureGroup } from '../../../shared/domain.js';
import { Empty } from '../../components/Empty.js';
import { useLiveQuery } from '../../store/use-live-query.js';
import { useMay } from '../../store/use-may.js';
import { useApp } from '../../store/app-store.js';
import { counted } from '../../lib/bulk-confirm.js';
import { notYoursHint, ownSplit } from '../../lib/own-jobs.js';
import type { SessionView } from '../../../shared/people.js';
import { FailedJobLine } from './FailedJobLine.js';
import { useFailureActions, type FailureActions } from './use-failure-actions.js';

const isOpen = (j: FailedJobView) => j.supersededByTake === null;

/**
 * "Retry all" / "New take all" on a group: for an artist, "Retry my 3" on their own failures only,
 * and "Retry all" disabled with the reason when none is theirs — never refused whole at the end.
 */
function AllButton({
  action,
  label,
  jobs,
  session,
  allowed,
  actions,
}: {
  action: 'retry' | 'newTake';
  label: string;
  jobs: FailedJobView[];
  session: SessionView | null;
  allowed: boolean;
  actions: FailureActions;
}) {
  const own = ownSplit(session, action, jobs);
  const targets = own ? own.mine : jobs;
  // None of hers: the plain label, disabled with the reason on hover ("Retry my 0" read as a count of nothing).
  const text =
    own && own.others > 0 && targets.length > 0 ? `${label} my ${targets.length.toLocaleString()}` : `${label} all`;
  const title =
    own && own.others > 0 && session
      ? targets.length === 0
        ? notYoursHint(session, action)
        : `${own.others.toLocaleString()} of these ${jobs.length.toLocaleString()} were imported by others and are left alone.`
      : undefined;
  return (
    <button
      type="button"
      className="btn btn-sm"
      disabled={targets.length === 0 || !allowed}
      title={title}
      data-action={`${action}-all`}
      onClick={(e) => (e.stopPropagation(), actions.run(action, targets))}
    >
      {text}
    </button>
  );
}

function Group({ g, actions, showSuperseded }: { g: FailureGroup; actions: FailureActions; showSuperseded: boolean }) {
  const [open, setOpen] = useState(false);
  const { mayAct } = useMay();
  const session = useApp((s) => s.session);
  const jobs = showSuperseded ? g.jobs : g.jobs.filter(isOpen);
  const toHandle = g.count - g.superseded;
  const listed = showSuperseded ? g.count : toHandle;
  const openJobs = g.jobs.filter(isOpen);
  return (
    <section
      className={`failure-group${open ? ' open' : ''}`}
      data-testid="failure-group"
      data-error-class={g.errorClass ?? ''}
    >
      <header className="failure-head" onClick={() => setOpen(!open)}>
        <span className="chev">{open ? '▾' : '▸'}</span>
        <span className={`failure-count${toHandle === 0 ? ' failure-count-done' : ''}`} data-testid="failure-count">
          {toHandle}
        </span>
        <div className="failure-reason">
          <div className="reason-text" data-testid="failure-reason">
            {g.reason}
          </div>
          <div className="failure-meta">
            {g.errorClass && <span className={`badge errclass errclass-${g.errorClass}`}>{g.errorClass}</span>}
            {g.superseded > 0 && (
              <span className="muted small">
                {counted(g.superseded, 'superseded take')}
                {showSuperseded ? '' : ' hidden'}
              </span>
            )}
          </div>
        </div>
        <AllButton
          action="retry"
          label="Retry"
          jobs={openJobs}
          session={session}
          allowed={mayAct('retry')}
          actions={actions}
        />
        <AllButton
          action="newTake"
          label="New take"
          jobs={openJobs}
          session={session}
          allowed={mayAct('newTake')}
          actions={actions}
        />
      </header>
      {open && (
        <div className="failure-jobs">
          {jobs.map((j) => (
            <FailedJobLine key={j.id} job={j} actions={actions} />
          ))}
          {listed > jobs.length && (
            <div className="muted small pad">… {(listed - jobs.length).toLocaleString()} more with this reason.</div>
          )}
        </div>
      )}
    </section>
  );
}

export function FailuresView() {
  const client = useApp((s) => s.client);
  const q = useLiveQuery(() => client.call('failures.list', { limitPerGroup: 200 }), [], 1_000);
  const actions = useFailureActions();
  const [showSuperseded, setShowSuperseded] = useState(false);
  const groups = q.data ?? [];
  const superseded = groups.reduce((n, g) => n + g.superseded, 0);
  const toHandle = groups.reduce((n, g) => n + g.count - g.superseded, 0);
  const shown = showSuperseded ? groups : groups.filter((g) => g.count > g.superseded);
  return (
    <section className="view view-failures">
      <div className="view-head">
        <div>
          <h1>Failures</h1>
          <div className="muted" data-testid="failures-summary">
            {q.data
              ? `${counted(toHandle, 'failed job')} to handle in ${counted(shown.length, 'group')}, by reason`
              : 'Loading…'}
          </div>
        </div>
        {superseded > 0 && (
          <button
            type="button"
            className="btn"
            onClick={() => setShowSuperseded(!showSuperseded)}
            aria-pressed={showSuperseded}
            data-testid="toggle-superseded"
            title="Takes an operator replaced with a newer take: handled, kept for their history"
          >
            {showSuperseded ? 'Hide superseded takes' : `Show ${counted(superseded, 'superseded take')}`}
          </button>
        )}
      </div>
      {q.error && (
        <Empty title="Could not load failures" tone="error">
          {q.error}
        </Empty>
      )}
      {q.data && groups.length === 0 && (
        <Empty title="No failures">Every job that ran either finished or is still going.</Empty>
      )}
      {q.data && groups.length > 0 && shown.length === 0 && (
        <Empty title="No failures to handle">
          Every failed take has a newer take. {counted(superseded, 'superseded take')} kept for their history.
        </Empty>
      )}
      <div className="failure-list">
        {shown.map((g) => (
          <Group key={g.key} g={g} actions={actions} showSuperseded={showSuperseded} />
        ))}
      </div>
      {actions.confirmDialog}
    </section>
  );
}
