/**
 * A job's attempt history: where it ran, what failed (node, exception, reason), and when; a failed
 * attempt expands to what ComfyUI said (its message and traceback) and its server's log lines of that time.
 * In the job drawer (`narrow`, 560 px at most) the reason — the longest words — has a line of its own
 * under its attempt, the full width of the table, instead of a column squeezed to a word or two.
 */
import { useState } from 'react';
import type { AttemptView } from '../../../shared/domain.js';
import { clock, duration } from '../../lib/format.js';
import { useLiveQuery } from '../../store/use-live-query.js';
import { useApp } from '../../store/app-store.js';
import { ServerLogBlock } from './ServerLogBlock.js';

/** What ComfyUI said when the prompt failed: node, exception and its message, the traceback (scrolls). */
function Detail({ a, columns }: { a: AttemptView; columns: number }) {
  return (
    <tr className="attempt-detail" data-testid="attempt-detail" data-attempt-detail={a.n}>
      <td colSpan={columns}>
        <div className="attempt-detail-body">
          <div className="attempt-detail-head small">
            <span>
              <span className="muted">Node</span> {a.nodeType ?? '—'}
              {a.nodeId ? <span className="muted"> (node {a.nodeId})</span> : null}
            </span>
            <span>
              <span className="muted">Exception</span> <span className="mono">{a.exceptionType ?? '—'}</span>
            </span>
          </div>
          {a.exceptionMessage && (
            <pre className="error-text" data-testid="attempt-message">
              {a.exceptionMessage}
            </pre>
          )}
          {a.traceback && (
            <>
              <div className="muted small">Traceback</div>
              <pre className="error-text traceback" data-testid="attempt-traceback">
                {a.traceback}
              </pre>
            </>
          )}
          <ServerLogBlock value={a.serverLog} />
        </div>
      </td>
    </tr>
  );
}

function Row({ a, narrow }: { a: AttemptView; narrow: boolean }) {
  const [open, setOpen] = useState(false);
  const hasDetail = a.exceptionMessage !== null || a.traceback !== null || a.serverLog !== null;
  return (
    <>
      <tr data-attempt={a.n} className={open ? 'open' : undefined}>
        <td className="num">#{a.n}</td>
        <td>
          <span className={`pill outcome-${a.outcome ?? 'running'}`}>{a.outcome ?? a.state}</span>
        </td>
        <td>
          {a.instanceName ?? '—'}
          <div className="muted small">{a.gpuName ?? ''}</div>
        </td>
        <td>
          {a.nodeType ? (
            <>
              {a.nodeType} <span className="muted">(node {a.nodeId})</span>
            </>
          ) : (
            '—'
          )}
        </td>
        <td className="exception mono small">
          {a.exceptionType ?? '—'}
          {hasDetail && (
            <div>
              <button
                type="button"
                className="btn btn-sm btn-ghost"
                onClick={() => setOpen(!open)}
                aria-expanded={open}
                data-action="attempt-detail"
              >
                {open ? '▾' : '▸'} Traceback
              </button>
            </div>
          )}
        </td>
        {!narrow && <td className="reason">{a.reason ?? ''}</td>}
        <td className="small">
          {clock(a.dispatchedAt)}
          <div className="muted">
            {a.startedAt && a.finishedAt ? `ran ${duration(a.finishedAt - a.startedAt)}` : ''}
          </div>
        </td>
      </tr>
      {narrow && a.reason && (
        <tr className="attempt-reason" data-attempt-reason={a.n}>
          <td />
          <td colSpan={5} className="reason">
            {a.reason}
          </td>
        </tr>
      )}
      {open && <Detail a={a} columns={narrow ? 6 : 7} />}
    </>
  );
}

export function AttemptsTable({ jobId, narrow = false }: { jobId: string; narrow?: boolean }) {
  const client = useApp((s) => s.client);
  const q = useLiveQuery(() => client.call('jobs.attempts', { id: jobId }), [jobId], 2_000);
  if (q.error) return <div className="alert alert-error">{q.error}</div>;
  if (!q.data) return <div className="muted pad">Loading attempts…</div>;
  return (
    <table className={`grid-table attempts${narrow ? ' attempts-narrow' : ''}`} data-testid="attempts">
      <thead>
        <tr>
          <th>Try</th>
          <th>Outcome</th>
          <th>Instance</th>
          <th>Node</th>
          <th>Exception</th>
          {!narrow && <th>Reason</th>}
          <th>When</th>
        </tr>
      </thead>
      <tbody>
        {q.data.map((a) => (
          <Row key={a.id} a={a} narrow={narrow} />
        ))}
      </tbody>
    </table>
  );
}
