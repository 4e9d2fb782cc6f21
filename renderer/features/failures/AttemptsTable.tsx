/**
 * A job's attempt history: where it ran, what failed (node, exception, reason), and when; a failed
 * attempt expands to what ComfyUI said (its message and traceback).
 */
import { useState } from 'react';
import type { AttemptView } from '../../../shared/domain.js';
import { clock, duration } from '../../lib/format.js';
import { useLiveQuery } from '../../store/use-live-query.js';
import { useApp } from '../../store/app-store.js';

/** What ComfyUI said when the prompt failed: node, exception and its message, the traceback (scrolls). */
function Detail({ a }: { a: AttemptView }) {
  return (
    <tr className="attempt-detail" data-testid="attempt-detail" data-attempt-detail={a.n}>
      <td colSpan={7}>
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
        </div>
      </td>
    </tr>
  );
}

function Row({ a }: { a: AttemptView }) {
  const [open, setOpen] = useState(false);
  const hasDetail = a.exceptionMessage !== null || a.traceback !== null;
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
        <td className="reason">{a.reason ?? ''}</td>
        <td className="small">
          {clock(a.dispatchedAt)}
          <div className="muted">
            {a.startedAt && a.finishedAt ? `ran ${duration(a.finishedAt - a.startedAt)}` : ''}
          </div>
        </td>
      </tr>
      {open && <Detail a={a} />}
    </>
  );
}

export function AttemptsTable({ jobId }: { jobId: string }) {
  const client = useApp((s) => s.client);
  const q = useLiveQuery(() => client.call('jobs.attempts', { id: jobId }), [jobId], 2_000);
  if (q.error) return <div className="alert alert-error">{q.error}</div>;
  if (!q.data) return <div className="muted pad">Loading attempts…</div>;
  return (
    <table className="grid-table attempts" data-testid="attempts">
      <thead>
        <tr>
          <th>Try</th>
          <th>Outcome</th>
          <th>Instance</th>
          <th>Node</th>
          <th>Exception</th>
          <th>Reason</th>
          <th>When</th>
        </tr>
      </thead>
      <tbody>
        {q.data.map((a) => (
          <Row key={a.id} a={a} />
        ))}
      </tbody>
    </table>
  );
}
