/** A job's attempt history: where it ran, what failed (node, exception, reason), and when. */
import type { AttemptView } from '../../../shared/domain.js';
import { clock, duration } from '../../lib/format.js';
import { useLiveQuery } from '../../store/use-live-query.js';
import { useApp } from '../../store/app-store.js';

function Row({ a }: { a: AttemptView }) {
  return (
    <tr data-attempt={a.n}>
      <td className="num">#{a.n}</td>
      <td><span className={`pill outcome-${a.outcome ?? 'running'}`}>{a.outcome ?? a.state}</span></td>
      <td>{a.instanceName ?? '—'}<div className="muted small">{a.gpuName ?? ''}</div></td>
      <td>{a.nodeType ? <>{a.nodeType} <span className="muted">(node {a.nodeId})</span></> : '—'}</td>
      <td className="mono small">{a.exceptionType ?? '—'}</td>
      <td className="reason">{a.reason ?? ''}</td>
      <td className="small">{clock(a.dispatchedAt)}<div className="muted">{a.startedAt && a.finishedAt ? `ran ${duration(a.finishedAt - a.startedAt)}` : ''}</div></td>
    </tr>
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
        <tr><th>Try</th><th>Outcome</th><th>Instance</th><th>Node</th><th>Exception</th><th>Reason</th><th>When</th></tr>
      </thead>
      <tbody>{q.data.map((a) => <Row key={a.id} a={a} />)}</tbody>
    </table>
  );
}
