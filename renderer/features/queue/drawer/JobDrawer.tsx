/**
 * The job drawer (a row's click, Enter, or a link `#/queue/job/<id>`): its shot path, state and
 * reason, why it waits, its live progress and preview, priority and place in the queue, template
 * version, the prompt's resolved parameters and workflow, its attempts, outputs and history, and the
 * actions its state allows. It sits over the table's right side; the queue's keys keep working.
 */
import type { ReactNode } from 'react';
import { isNextUp, type JobDetail, type JobView } from '../../../../shared/domain.js';
import { isWaiting } from '../../../../shared/job-states.js';
import { describeOrderChange, takePathOf } from '../../../../shared/job-detail.js';
import { StatePill } from '../../../components/StatePill.js';
import { AttemptsTable } from '../../failures/AttemptsTable.js';
import { dateTime, STATE_LABEL } from '../../../lib/format.js';
import { closeJob } from '../../../lib/route.js';
import { useLiveQuery } from '../../../store/use-live-query.js';
import { useApp } from '../../../store/app-store.js';
import { DrawerActions } from './DrawerActions.js';
import { DrawerLive } from './DrawerLive.js';
import { DrawerOutputs } from './DrawerOutputs.js';
import { DrawerPrompt } from './DrawerPrompt.js';
import { DrawerWhy } from './DrawerWhy.js';

/** The job's view: from the store when the queue has it (kept live by events), else fetched into it. */
function useJob(id: string): { job: JobView | undefined; error: string | null } {
  const job = useApp((s) => s.jobs[id]);
  const loadJob = useApp((s) => s.loadJob);
  const q = useLiveQuery(() => (job ? Promise.resolve(null) : loadJob(id)), [id, !job]);
  return { job, error: job ? null : q.error };
}

function Section({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  return (
    <section className="drawer-section" data-testid={testId}>
      <h3>{title}</h3>
      {children}
    </section>
  );
}

function Facts({ job, d }: { job: JobView; d: JobDetail | null }) {
  return (
    <dl className="facts facts-3" data-testid="drawer-facts">
      <div>
        <dt>Priority</dt>
        <dd>
          <span className={`prio prio-${job.priority}`}>{job.priority}</span>
        </dd>
      </div>
      <div>
        <dt>Place in queue</dt>
        <dd data-testid="queue-position">
          {d?.queuePosition ? `#${d.queuePosition.toLocaleString()}` : '—'}
          {/* Only while it has a place: a rendering or finished job read "— rank 0 within normal". */}
          {d?.queuePosition ? (
            <span
              className="sub muted tiny"
              title="Jobs of one priority go in rank order, lowest first; Move to top gives a rank below the lowest."
              data-testid="queue-rank"
            >{`rank ${job.rank.toLocaleString()} within ${job.priority}`}</span>
          ) : null}
        </dd>
      </div>
      <div>
        <dt>Tries</dt>
        <dd>
          {job.attempts}/{job.maxAttempts}
        </dd>
      </div>
      <div>
        <dt>Template</dt>
        <dd data-testid="template-version">
          {job.template} <span className="muted">v{d?.template.version ?? '…'}</span>
          {d && d.template.latestVersion > d.template.version && (
            <span className="sub tiny warn">
              v{d.template.latestVersion} exists; this job keeps v{d.template.version}
            </span>
          )}
        </dd>
      </div>
      <div>
        <dt>Seed</dt>
        <dd className="mono" data-testid="seed">
          {job.seed ?? '—'}
          {d?.seedPinned ? <span className="muted tiny"> pinned</span> : null}
        </dd>
      </div>
      <div>
        <dt>Needs</dt>
        <dd>
          {job.vramGb} GB
          {job.tags.length ? <span className="sub muted tiny truncate">{job.tags.join(', ')}</span> : null}
        </dd>
      </div>
      <div>
        <dt>Enqueued</dt>
        <dd className="small">{dateTime(job.enqueuedAt)}</dd>
      </div>
      <div>
        <dt>Started</dt>
        <dd className="small" data-testid="drawer-started">
          {isNextUp(job) ? <span className="muted">not yet: next on its workstation</span> : dateTime(job.startedAt)}
        </dd>
      </div>
      <div>
        <dt>Finished</dt>
        <dd className="small">{dateTime(job.finishedAt)}</dd>
      </div>
    </dl>
  );
}

export function JobDrawer({ id }: { id: string }) {
  const client = useApp((s) => s.client);
  const { job, error } = useJob(id);
  const detail = useLiveQuery(() => client.call('jobs.detail', { id }), [id], 2_000);
  const d = detail.data?.jobId === id ? detail.data : null;
  const waiting = job && isWaiting(job.state);
  // The same path the detail will bring (takePathOf is the engine's own), so nothing shifts when it arrives.
  const path = d?.path ?? (job ? takePathOf(job) : null);
  return (
    <aside className="drawer" aria-label="Job detail" data-testid="job-drawer" data-job-id={id} data-state={job?.state}>
      <header className="drawer-head">
        <div className="drawer-title">
          {path ? (
            <div className="crumbs" data-testid="shot-path">
              <span>{path.project}</span>
              <span>{path.episode}</span>
              {path.sequence && <span>{path.sequence}</span>}
              <b>{path.shot}</b>
              <span>{path.stage}</span>
              <span>take {path.take}</span>
            </div>
          ) : (
            <div className="muted">Loading job…</div>
          )}
          <div className="mono tiny muted">{id}</div>
        </div>
        <button
          type="button"
          className="icon-btn"
          onClick={closeJob}
          aria-label="Close (Esc)"
          data-testid="drawer-close"
        >
          ×
        </button>
      </header>
      <div className="drawer-body">
        {error && <div className="alert alert-error">{error}</div>}
        {detail.error && !d && <div className="alert alert-error">{detail.error}</div>}
        {job && (
          <>
            <div className="drawer-state">
              <StatePill state={job.state} next={isNextUp(job)} />
              {job.blocked && <span className="pill pill-blocked">Blocked</span>}
              <span className="small" data-testid="state-reason">
                {isNextUp(job)
                  ? 'sent to its workstation; it starts there when the prompt running there ends'
                  : (job.stateReason ??
                    (job.state === 'queued' ? 'waiting for a workstation' : STATE_LABEL[job.state]))}
              </span>
            </div>
            <DrawerActions job={job} />
            {job.state === 'running' && (
              <Section title={isNextUp(job) ? 'Next on its workstation' : 'Rendering'}>
                <DrawerLive job={job} />
              </Section>
            )}
            {waiting && (
              <Section title="Why it is waiting">
                <DrawerWhy id={id} />
              </Section>
            )}
            <Facts job={job} d={d} />
          </>
        )}
        {d && (
          <>
            {d.dependency && (
              <p className="small">
                Waits for <b>{d.dependency.stage}</b> take {d.dependency.take}: <StatePill state={d.dependency.state} />
              </p>
            )}
            <Section title="What the prompt sends" testId="drawer-prompt">
              <DrawerPrompt d={d} />
            </Section>
          </>
        )}
        <Section title="Attempts" testId="drawer-attempts">
          <AttemptsTable jobId={id} narrow />
        </Section>
        {d && (
          <Section title="Outputs">
            <DrawerOutputs outputs={d.outputs} />
          </Section>
        )}
        {d && d.events.length > 0 && (
          <Section title="History">
            <ol className="history" data-testid="history">
              {d.events.map((e, i) => (
                <li key={i}>
                  <span className="muted small nowrap">{dateTime(e.at)}</span>{' '}
                  {e.kind === 'state' ? (
                    <>
                      <StatePill state={e.to} /> <span className="small">{e.reason ?? ''}</span>
                    </>
                  ) : (
                    <span className="small" data-history="order">
                      {describeOrderChange(e)}
                    </span>
                  )}{' '}
                  <span className="muted tiny">({e.actor})</span>
                </li>
              ))}
            </ol>
          </Section>
        )}
      </div>
    </aside>
  );
}
