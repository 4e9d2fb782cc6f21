/**
 * A running job as it renders: the bar over the whole workflow, node k of N beside the sampler's
 * step n/m, elapsed and ETA (from earlier runs of this template version on this GPU model), where it
 * runs and in which phase, and the latest preview image ComfyUI sent (asked for about once a second,
 * its bytes only when there is a newer one).
 */
import { useEffect, useState } from 'react';
import type { JobProgress, JobView } from '../../../../shared/domain.js';
import { lostContactWords } from '../../../../shared/domain.js';
import { etaOf, workflowFraction } from '../../../lib/eta.js';
import { duration, elapsedMs } from '../../../lib/format.js';
import { useNow } from '../../../lib/use-now.js';
import { useApp } from '../../../store/app-store.js';
import { useNextUp } from '../../../store/use-next-up.js';

const PREVIEW_EVERY_MS = 1_000;

function usePreview(id: string, running: boolean): { src: string; at: number } | null {
  const client = useApp((s) => s.client);
  const [img, setImg] = useState<{ src: string; at: number; seq: number } | null>(null);
  useEffect(() => {
    if (!running) return setImg(null);
    let live = true;
    let seq: number | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = () => {
      client.call('jobs.preview', { id, ...(seq !== undefined ? { since: seq } : {}) }).then(
        (p) => {
          if (!live) return;
          if (p?.data) setImg({ src: `data:${p.mediaType};base64,${p.data}`, at: p.at, seq: p.seq });
          seq = p?.seq;
          timer = setTimeout(ask, PREVIEW_EVERY_MS);
        },
        () => live && (timer = setTimeout(ask, PREVIEW_EVERY_MS * 3)),
      );
    };
    ask();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id, running, client]);
  return img;
}

export function DrawerLive({ job }: { job: JobView }) {
  const progress = useApp((s) => s.progress[job.id]) as JobProgress | undefined;
  const instance = useApp((s) => (job.instanceId ? s.instances[job.instanceId] : undefined));
  const now = useNow();
  const preview = usePreview(job.id, job.state === 'running');
  const p = progress ?? job.progress;
  const fraction = p ? workflowFraction(p) : null;
  const next = useNextUp(job, now);
  const eta = next?.eta ?? etaOf(job, p, now);
  return (
    <div className="live" data-testid="drawer-live">
      <div className="live-bar">
        <div className={`bar bar-wide${fraction === null && !next ? ' bar-indeterminate' : ''}`}>
          <span style={{ width: `${(fraction ?? 0) * 100}%` }} />
        </div>
        <span className="num small">{fraction === null ? '' : `${Math.floor(fraction * 100)}%`}</span>
      </div>
      <dl className="facts facts-4">
        <div>
          <dt>Node</dt>
          <dd data-testid="drawer-node">
            {p ? (p.nodesDone !== undefined && p.nodesTotal ? `${p.nodesDone} of ${p.nodesTotal}` : '—') : '—'}
            <span className="sub muted small truncate">
              {p?.nodeType ?? p?.node ?? (next ? 'not started' : 'starting…')}
            </span>
          </dd>
        </div>
        <div>
          <dt>Step</dt>
          <dd data-testid="drawer-steps">{p && p.max > 0 ? `${p.value}/${p.max}` : '—'}</dd>
        </div>
        <div>
          <dt>Elapsed</dt>
          <dd>{duration(elapsedMs(job, now))}</dd>
        </div>
        <div>
          <dt>ETA</dt>
          <dd title={eta.title} data-testid="drawer-eta">
            {eta.text}
            <span className="sub muted tiny truncate">
              {job.estimate ? `usually ${duration(job.estimate.typicalMs)}` : ''}
            </span>
          </dd>
        </div>
      </dl>
      <p className="small">
        On <b>{instance?.name ?? '—'}</b>
        {instance?.gpuName ? <span className="muted"> ({instance.gpuName})</span> : null}
        {next ? (
          <>
            {' '}
            ·{' '}
            <span data-testid="drawer-next">
              next: waits behind {next.ahead ? `${next.ahead.shot} ${next.ahead.stage}` : 'the prompt running there'}
            </span>
          </>
        ) : null}
        {job.attempt && !next ? (
          <>
            {' '}
            · {job.attempt.phase}
            {job.attempt.promptNumber !== null ? (
              <span className="muted"> · ComfyUI #{job.attempt.promptNumber}</span>
            ) : null}
          </>
        ) : null}
      </p>
      {job.contact && (
        <div className="alert alert-warn" data-testid="drawer-contact">
          {lostContactWords(job.contact, now)}
        </div>
      )}
      <div className="preview">
        {preview ? (
          <img src={preview.src} alt="Latest preview from ComfyUI" data-testid="drawer-preview" />
        ) : (
          <span className="muted small">No preview image yet (ComfyUI sends them when its preview method is on).</span>
        )}
      </div>
    </div>
  );
}
