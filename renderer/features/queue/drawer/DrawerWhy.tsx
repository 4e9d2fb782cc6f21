/** Why the job is not running (`jobs.why`): one sentence, and for a queued job each workstation's first reason. */
import type { WaitLasting } from '../../../../shared/domain.js';
import { clock } from '../../../lib/format.js';
import { useLiveQuery } from '../../../store/use-live-query.js';
import { useApp } from '../../../store/app-store.js';

const LASTING: Record<WaitLasting, string> = {
  now: 'clears by itself',
  operator: 'needs someone to act',
  never: 'not on this farm',
};

export function DrawerWhy({ id }: { id: string }) {
  const client = useApp((s) => s.client);
  const q = useLiveQuery(() => client.call('jobs.why', { id }), [id], 1_500);
  if (q.error) return <div className="alert alert-error">{q.error}</div>;
  if (!q.data) return <div className="muted small">…</div>;
  const w = q.data;
  return (
    <div className="why" data-testid="why">
      <p className={`why-summary${w.blocked ? ' warn' : ''}`} data-testid="why-summary">
        {w.summary}
        {w.lasting && <span className={`lasting lasting-${w.lasting}`}>{LASTING[w.lasting]}</span>}
      </p>
      {w.retryAt !== null && <p className="muted small">Queued again at {clock(w.retryAt)}.</p>}
      {w.instances.length > 0 && (
        <table className="grid-table compact" data-testid="why-instances">
          <tbody>
            {w.instances.map((i) => (
              <tr key={i.instanceId} data-instance={i.name}>
                <td className="nowrap">
                  <b>{i.name}</b>
                </td>
                <td className={i.kind === null ? 'ok' : i.lasting === 'never' ? 'err' : ''}>{i.text}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {w.source === 'store' && (
        <p className="muted tiny">From what the store holds: no farm runs in the server's process.</p>
      )}
    </div>
  );
}
