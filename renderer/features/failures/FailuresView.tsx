/** Failed jobs grouped by reason, largest group first; expand for the jobs and their attempt history. */
import { useState } from 'react';
import type { FailureGroup, JobView } from '../../../shared/domain.js';
import { actionAllowed, type JobAction } from '../../../shared/job-states.js';
import { errorMessage } from '../../client/client.js';
import { Empty } from '../../components/Empty.js';
import { StatePill } from '../../components/StatePill.js';
import { dateTime } from '../../lib/format.js';
import { useLiveQuery } from '../../lib/use-live-query.js';
import { useMay } from '../../lib/permissions.js';
import { useApp } from '../../store/app-store.js';
import { AttemptsTable } from './AttemptsTable.js';

function useJobAction() {
  const client = useApp((s) => s.client);
  const notify = useApp((s) => s.notify);
  return async (action: Extract<JobAction, 'retry' | 'newTake'>, jobs: JobView[]) => {
    const ids = jobs.filter((j) => actionAllowed(action, j.state)).map((j) => j.id);
    if (!ids.length) return;
    try {
      const done = await client.call(action === 'retry' ? 'jobs.retry' : 'jobs.newTake', { ids });
      notify('success', `${action === 'retry' ? 'Retrying' : 'New take for'} ${done.length} job${done.length === 1 ? '' : 's'}.`);
    } catch (err) {
      notify('error', errorMessage(err));
    }
  };
}

function JobLine({ job, run }: { job: JobView; run: ReturnType<typeof useJobAction> }) {
  const [open, setOpen] = useState(false);
  const { mayAct } = useMay();
  return (
    <div className={`failure-job${open ? ' open' : ''}`} data-job-id={job.id} data-shot={job.shot}>
      <div className="failure-job-line" onClick={() => setOpen(!open)}>
        <span className="chev">{open ? '▾' : '▸'}</span>
        <b>{job.shot}</b>
        <span>{job.stage}</span>
        <span className="muted">take {job.take}</span>
        <StatePill state={job.state} />
        <span className="muted small">{job.attempts} attempt{job.attempts === 1 ? '' : 's'} · {dateTime(job.finishedAt ?? job.updatedAt)}</span>
        {job.importedBy && <span className="muted small" data-testid="imported-by">imported by {job.importedBy}</span>}
        <span className="spacer" />
        <button className="btn btn-sm" disabled={!actionAllowed('retry', job.state) || !mayAct('retry')} onClick={(e) => (e.stopPropagation(), void run('retry', [job]))} data-action="retry">Retry</button>
        <button className="btn btn-sm" disabled={!actionAllowed('newTake', job.state) || !mayAct('newTake')} onClick={(e) => (e.stopPropagation(), void run('newTake', [job]))} data-action="newTake">New take</button>
      </div>
      {open && <AttemptsTable jobId={job.id} />}
    </div>
  );
}

function Group({ g, run }: { g: FailureGroup; run: ReturnType<typeof useJobAction> }) {
  const [open, setOpen] = useState(false);
  return (
    <section className={`failure-group${open ? ' open' : ''}`} data-testid="failure-group" data-error-class={g.errorClass ?? ''}>
      <header className="failure-head" onClick={() => setOpen(!open)}>
        <span className="chev">{open ? '▾' : '▸'}</span>
        <span className="failure-count">{g.count}</span>
        <div className="failure-reason">
          <div className="reason-text" data-testid="failure-reason">{g.reason}</div>
          {g.errorClass && <span className={`badge errclass errclass-${g.errorClass}`}>{g.errorClass}</span>}
        </div>
        <button className="btn btn-sm" onClick={(e) => (e.stopPropagation(), void run('retry', g.jobs))}>Retry all</button>
        <button className="btn btn-sm" onClick={(e) => (e.stopPropagation(), void run('newTake', g.jobs))}>New take all</button>
      </header>
      {open && (
        <div className="failure-jobs">
          {g.jobs.map((j) => <JobLine key={j.id} job={j} run={run} />)}
          {g.count > g.jobs.length && <div className="muted small pad">… {g.count - g.jobs.length} more with this reason.</div>}
        </div>
      )}
    </section>
  );
}

export function FailuresView() {
  const client = useApp((s) => s.client);
  const q = useLiveQuery(() => client.call('failures.list', { limitPerGroup: 200 }), [], 1_000);
  const run = useJobAction();
  const total = q.data?.reduce((n, g) => n + g.count, 0) ?? 0;
  return (
    <section className="view view-failures">
      <div className="view-head">
        <div>
          <h1>Failures</h1>
          <div className="muted">{q.data ? `${total} failed job${total === 1 ? '' : 's'} in ${q.data.length} group${q.data.length === 1 ? '' : 's'}, by reason` : 'Loading…'}</div>
        </div>
      </div>
      {q.error && <Empty title="Could not load failures" tone="error">{q.error}</Empty>}
      {q.data && q.data.length === 0 && <Empty title="No failures">Every job that ran either finished or is still going.</Empty>}
      <div className="failure-list">{q.data?.map((g) => <Group key={g.key} g={g} run={run} />)}</div>
    </section>
  );
}
