/**
 * Live progress of a running job: a bar over the whole workflow (node k of N, the sampler's share by
 * its steps — it never falls back at the decode or save node), the node, step n/m and node k/N;
 * elapsed and ETA tick with the shared clock. Otherwise why it waits.
 */
import {
  isNextUp,
  lostContactWords,
  type JobProgress,
  type JobView,
  type LostContact,
} from '../../../shared/domain.js';
import { etaOf, workflowFraction } from '../../lib/eta.js';
import { duration, elapsedMs } from '../../lib/format.js';
import { useNow } from '../../lib/use-now.js';
import { useNextUp } from '../../store/use-next-up.js';

export function ProgressCell({ job, progress }: { job: JobView; progress: JobProgress | undefined }) {
  if (job.state === 'completed') {
    return (
      <div className="progress">
        <div className="bar bar-done">
          <span style={{ width: '100%' }} />
        </div>
      </div>
    );
  }
  if (job.state !== 'running') {
    // Why it waits, as the engine says it (a blocked job: no registered workstation could ever take it).
    const reason = job.waitReason ?? job.stateReason ?? '';
    return (
      <span className={`small truncate ${job.blocked ? 'warn' : 'muted'}`} title={reason} data-testid="wait-reason">
        {job.blocked ? `blocked: ${reason}` : reason}
      </span>
    );
  }
  if (job.contact) return <ContactNote contact={job.contact} />;
  if (isNextUp(job)) return <NextNote job={job} />;
  const p = progress ?? job.progress;
  const fraction = p ? workflowFraction(p) : null;
  return (
    <div className="progress" data-testid="progress">
      <div className={`bar${fraction === null ? ' bar-indeterminate' : ''}`}>
        <span style={{ width: `${(fraction ?? 0) * 100}%` }} />
      </div>
      <span className="progress-label">
        {p ? (
          <>
            <span className="truncate">{p.nodeType ?? p.node ?? 'node'}</span>
            {p.max > 0 && (
              <span className="steps" data-testid="steps">
                {p.value}/{p.max}
              </span>
            )}
            {p.nodesTotal !== undefined && p.nodesDone !== undefined && (
              <span
                className="nodes"
                data-testid="nodes"
                title={`node ${p.nodesDone} of the workflow's ${p.nodesTotal}`}
              >
                node {p.nodesDone}/{p.nodesTotal}
              </span>
            )}
          </>
        ) : (
          <span className="muted">starting…</span>
        )}
      </span>
    </div>
  );
}

/** "Next on gpu-02 · after sh010 comp": sent there, waiting behind the prompt running there. */
function NextNote({ job }: { job: JobView }) {
  const now = useNow();
  const n = useNextUp(job, now);
  const after = n?.ahead ? ` · after ${n.ahead.shot} ${n.ahead.stage}` : '';
  const words = `Next on ${n?.instanceName ?? 'its workstation'}${after}`;
  return (
    <span
      className="small truncate next-note"
      data-testid="next-on"
      title={`${words}: sent there, it starts when the prompt running there ends`}
    >
      {words}
    </span>
  );
}

/** "lost contact with gpu-03 12 s ago; requeued in 48 s unless it answers", counted by the page's own clock. */
function ContactNote({ contact }: { contact: LostContact }) {
  const now = useNow();
  const words = lostContactWords(contact, now);
  return (
    <span className="contact-lost small truncate" data-testid="contact" title={words}>
      {words}
    </span>
  );
}

export function ElapsedCell({ job }: { job: JobView }) {
  const now = useNow();
  return <span className="num">{duration(elapsedMs(job, now))}</span>;
}

export function EtaCell({ job, progress }: { job: JobView; progress: JobProgress | undefined }) {
  const now = useNow();
  const next = useNextUp(job, now);
  const eta = next?.eta ?? etaOf(job, progress ?? job.progress, now);
  return (
    <span
      className={`num${eta.text === 'overdue' ? ' warn' : eta.ms === null ? ' muted' : ''}`}
      title={eta.title}
      data-testid="eta"
    >
      {eta.text}
    </span>
  );
}
