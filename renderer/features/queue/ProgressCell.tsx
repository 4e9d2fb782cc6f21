/** Live progress of a running job: bar, node, step n/m; elapsed and ETA tick with the shared clock. */
import { lostContactWords, type JobProgress, type JobView, type LostContact } from '../../../shared/domain.js';
import { duration, elapsedMs, etaMs } from '../../lib/format.js';
import { useNow } from '../../lib/use-now.js';

export function ProgressCell({ job, progress }: { job: JobView; progress: JobProgress | undefined }) {
  if (job.state === 'completed') {
    return (
      <div className="progress">
        <div className="bar bar-done"><span style={{ width: '100%' }} /></div>
      </div>
    );
  }
  if (job.state !== 'running') return <span className="muted small truncate">{job.stateReason ?? ''}</span>;
  if (job.contact) return <ContactNote contact={job.contact} />;
  const p = progress ?? job.progress;
  const pct = p && p.max > 0 ? Math.min(100, (p.value / p.max) * 100) : 0;
  return (
    <div className="progress" data-testid="progress">
      <div className={`bar${p && p.max > 0 ? '' : ' bar-indeterminate'}`}><span style={{ width: `${pct}%` }} /></div>
      <span className="progress-label">
        {p ? (
          <>
            <span className="truncate">{p.nodeType ?? p.node ?? 'node'}</span>
            {p.max > 0 && <span className="steps" data-testid="steps">{p.value}/{p.max}</span>}
          </>
        ) : (
          <span className="muted">starting…</span>
        )}
      </span>
    </div>
  );
}

/** "lost contact with gpu-03 12 s ago; requeued in 48 s unless it answers", counted by the page's own clock. */
function ContactNote({ contact }: { contact: LostContact }) {
  const now = useNow();
  const words = lostContactWords(contact, now);
  return <span className="contact-lost small truncate" data-testid="contact" title={words}>{words}</span>;
}

export function ElapsedCell({ job }: { job: JobView }) {
  const now = useNow();
  return <span className="num">{duration(elapsedMs(job, now))}</span>;
}

export function EtaCell({ job, progress }: { job: JobView; progress: JobProgress | undefined }) {
  const now = useNow();
  const p = progress ?? job.progress;
  if (job.state !== 'running' || !p) return <span className="num muted">—</span>;
  const eta = etaMs(job.startedAt, p.value, p.max, now);
  return <span className="num">{eta === null ? '—' : `~${duration(eta)}`}</span>;
}
