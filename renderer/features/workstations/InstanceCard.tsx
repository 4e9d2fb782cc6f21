/**
 * One workstation: health, GPU, VRAM split, queue, current job, last probe, and its admin actions.
 * Drain and Disable ask first, saying what happens to the prompt running there (admin-confirm.tsx).
 */
import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { isNextUp, type InstanceAdminState, type InstanceView } from '../../../shared/domain.js';
import { errorMessage } from '../../client/client.js';
import { ago, clock, gb, loadWords } from '../../lib/format.js';
import { useNow } from '../../lib/use-now.js';
import { useMay } from '../../store/use-may.js';
import { useApp } from '../../store/app-store.js';
import { AdminConfirm } from './AdminConfirm.js';
import { shortId } from './EnginesPanel.js';
import { VramBar } from './VramBar.js';
import { queueWords, workerWords } from './runpod-words.js';

const HEALTH_LABEL: Record<string, string> = {
  unknown: 'Not probed yet',
  idle: 'Idle',
  busy: 'Rendering',
  unhealthy: 'Unhealthy',
  offline: 'Offline',
  draining: 'Draining',
  disabled: 'Disabled',
  quarantined: 'Quarantined',
};

function CurrentJob({ id }: { id: string }) {
  const job = useApp((s) => s.jobs[id]);
  const progress = useApp((s) => s.progress[id]);
  if (!job) return <span className="mono small">{id.slice(0, 8)}</span>;
  return (
    <span>
      <b>{job.shot}</b> · {job.stage} <span className="muted">take {job.take}</span>
      {progress && progress.max > 0 && (
        <span className="muted small">
          {' '}
          — {progress.nodeType ?? progress.node} {progress.value}/{progress.max}
        </span>
      )}
    </span>
  );
}

export function InstanceCard({ instance: i, onEdit }: { instance: InstanceView; onEdit: () => void }) {
  const client = useApp((s) => s.client);
  const notify = useApp((s) => s.notify);
  const now = useNow();
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [asking, setAsking] = useState<'draining' | 'disabled' | null>(null);
  const { may } = useMay();
  // The instance view's list is as of its last probe; running jobs in the store are fresher.
  const runningHere = useApp(
    useShallow((s) =>
      Object.values(s.jobs)
        .filter((j) => j.state === 'running' && j.instanceId === i.id)
        .map((j) => j.id),
    ),
  );
  const finished = useApp(
    useShallow((s) => i.currentJobIds.filter((id) => s.jobs[id] && s.jobs[id].state !== 'running')),
  );
  const current = [...new Set([...i.currentJobIds.filter((id) => !finished.includes(id)), ...runningHere])];
  // A prompt sent there that waits behind the running one (prefetch) is next, not rendering.
  const nextIds = useApp(
    useShallow((s) =>
      current.filter((id) => {
        const j = s.jobs[id];
        return j !== undefined && isNextUp(j);
      }),
    ),
  );
  const rendering = current.filter((id) => !nextIds.includes(id));

  const setAdmin = async (adminState: InstanceAdminState) => {
    try {
      const v = await client.call('instances.setAdminState', { id: i.id, adminState });
      notify('info', `${v.name} is now ${v.adminState === 'active' ? 'taking work' : v.adminState}.`);
    } catch (err) {
      notify('error', errorMessage(err));
    }
  };
  const [freeing, setFreeing] = useState(false);
  const freeVram = async () => {
    setFreeing(true);
    try {
      const v = await client.call('instances.freeVram', { id: i.id });
      notify('info', `${v.name} unloaded its models${v.vram ? `: ${gb(v.vram.freeBytes)} free` : ''}.`);
    } catch (err) {
      notify('error', errorMessage(err));
    } finally {
      setFreeing(false);
    }
  };
  const remove = async () => {
    try {
      await client.call('instances.remove', { id: i.id });
      notify('info', `${i.name} removed.`);
    } catch (err) {
      notify('error', errorMessage(err));
      setConfirmRemove(false);
    }
  };

  // Probed since its last answer without one: what it reported then is no longer known.
  const silent = i.lastProbeAt !== null && (i.lastAnswerAt === null || i.lastAnswerAt < i.lastProbeAt);
  const unknownSince = silent ? i.lastAnswerAt : null;
  const shownHealth =
    i.adminState !== 'active' && i.health !== 'offline' && i.health !== 'unhealthy' ? i.adminState : i.health;
  return (
    <article
      className={`card instance health-${shownHealth}`}
      data-instance={i.name}
      data-health={i.health}
      data-admin={i.adminState}
    >
      <header className="card-head">
        <div>
          <div className="card-title">{i.name}</div>
          <div className="muted small mono">{i.url}</div>
        </div>
        <span className={`badge health health-${shownHealth}`} data-testid="health">
          {HEALTH_LABEL[shownHealth] ?? shownHealth}
        </span>
      </header>
      <div className="gpu">
        <span className="gpu-name">{i.gpuName ?? 'GPU unknown'}</span>
        {i.comfyVersion && <span className="muted small">ComfyUI {i.comfyVersion}</span>}
      </div>
      {i.engine && (
        // Several engines share this farm: the one holding this workstation's lease drives it.
        <div
          className="muted small cut-head"
          data-testid="driven-by"
          data-engine={i.engine.engineId ?? ''}
          title={i.engine.engineId ?? undefined}
        >
          {i.engine.host && i.engine.engineId
            ? `Driven by ${i.engine.host} · ${shortId(i.engine.engineId)}`
            : 'No engine drives it now (waiting for one to take it)'}
          {i.engine.pinned ? ` · pinned to ${i.engine.pinned}` : ''}
        </div>
      )}
      {i.kind === 'runpod' ? (
        // An endpoint has workers and RunPod's queue (from /health), not a VRAM split or a ComfyUI queue.
        <dl className="facts facts-2">
          <div>
            <dt>Workers</dt>
            <dd data-testid="endpoint-workers">
              {i.cloud?.endpointHealth && !silent ? workerWords(i.cloud.endpointHealth) : '—'}
            </dd>
          </div>
          <div>
            <dt>At RunPod</dt>
            <dd data-testid="endpoint-queue">
              {i.cloud?.endpointHealth && !silent ? queueWords(i.cloud.endpointHealth) : '—'}
            </dd>
          </div>
        </dl>
      ) : (
        <VramBar vram={i.vram} unknownSince={unknownSince} />
      )}
      <dl className="facts">
        {i.kind !== 'runpod' && (
          <div>
            <dt>Queue</dt>
            <dd className="num" data-testid="queue">
              {silent ? (unknownSince ? `unknown since ${clock(unknownSince)}` : 'unknown') : (i.queueLength ?? '—')}
            </dd>
          </div>
        )}
        <div>
          <dt>{i.kind === 'runpod' ? 'Jobs here' : 'Slots'}</dt>
          <dd
            className="num"
            data-testid="slots"
            title={`${rendering.length} of ${i.maxConcurrency} slot${i.maxConcurrency === 1 ? '' : 's'} rendering${nextIds.length ? `; ${nextIds.length} more sent there, waiting behind` : ''}`}
          >
            {rendering.length}/{i.maxConcurrency}
          </dd>
        </div>
        <div>
          <dt>Last answer</dt>
          <dd data-testid="last-answer" className={silent ? 'warn' : undefined}>
            {ago(i.lastAnswerAt, now)}
          </dd>
        </div>
      </dl>
      <div className="current">
        <span className="muted small" data-testid="current-summary">
          {loadWords(rendering.length, nextIds.length)}
        </span>
        {current.length > 0 && (
          <ul className="current-list" data-testid="current-job">
            {rendering.map((id) => (
              <li key={id} data-current="rendering">
                <CurrentJob id={id} />
              </li>
            ))}
            {nextIds.map((id) => (
              <li key={id} data-current="next">
                <span className="pill state-next">Next</span> <CurrentJob id={id} />
              </li>
            ))}
          </ul>
        )}
      </div>
      {i.cloud && (
        <div className="cloud" data-testid="cloud-spend">
          <span className="badge">RunPod cloud · ${i.cloud.pricePerHourUsd.toFixed(2)}/h</span>
          <span className="small" data-testid="cloud-spent">
            {' '}
            spent today ${i.cloud.spentTodayUsd.toFixed(2)} of ${i.cloud.budgetUsdPerDay.toFixed(2)}
            {i.cloud.budgetUsdPerDay <= 0 ? ' (a $0 budget: never bursts)' : ''}
          </span>
          {i.cloud.burstWait && (
            <div className="muted small" data-testid="cloud-wait">
              {i.cloud.burstWait}
            </div>
          )}
        </div>
      )}
      {i.tags.length > 0 && (
        <div className="tags">
          {i.tags.map((t) => (
            <span key={t} className="tag">
              {t}
            </span>
          ))}
        </div>
      )}
      {i.lastError && (
        <div className="alert alert-error small" data-testid="instance-last-error">
          {i.lastError}
        </div>
      )}
      {i.quarantinedUntil && i.quarantinedUntil > now && (
        <div className="alert alert-warn small">
          Quarantined until {new Date(i.quarantinedUntil).toLocaleTimeString()} after repeated failures.
        </div>
      )}
      {may('workstations') && (
        <footer className="card-actions" data-needs="workstations">
          <button type="button" className="btn btn-sm" onClick={onEdit}>
            Edit
          </button>
          {i.adminState === 'active' ? (
            <>
              <button
                type="button"
                className="btn btn-sm"
                onClick={() => setAsking('draining')}
                data-action="drain"
                title="Finish the current prompt, take no new one"
              >
                Drain
              </button>
              <button
                type="button"
                className="btn btn-sm"
                onClick={() => setAsking('disabled')}
                data-action="disable"
                title="Take no new work; a running prompt is not interrupted"
              >
                Disable
              </button>
            </>
          ) : (
            <button
              type="button"
              className="btn btn-sm btn-primary"
              onClick={() => void setAdmin('active')}
              data-action="enable"
            >
              Enable
            </button>
          )}
          {/* Only an idle LAN server: unloading under a running prompt would cost it its model (the engine refuses too). */}
          {i.kind === 'comfyui' && shownHealth === 'idle' && current.length === 0 && (
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => void freeVram()}
              disabled={freeing}
              data-action="free-vram"
              title="Ask ComfyUI to unload its models and caches (POST /free)"
            >
              {freeing ? 'Freeing…' : 'Free VRAM'}
            </button>
          )}
          <span className="spacer" />
          {confirmRemove ? (
            <>
              <button
                type="button"
                className="btn btn-sm btn-danger"
                onClick={() => void remove()}
                data-action="confirm-remove"
              >
                Remove {i.name}
              </button>
              <button type="button" className="btn btn-sm btn-ghost" onClick={() => setConfirmRemove(false)}>
                Keep
              </button>
            </>
          ) : (
            <button
              type="button"
              className="btn btn-sm btn-danger-ghost"
              onClick={() => setConfirmRemove(true)}
              data-action="remove"
            >
              Remove
            </button>
          )}
        </footer>
      )}
      {asking && (
        <AdminConfirm
          name={i.name}
          to={asking}
          runningJobIds={current}
          onCancel={() => setAsking(null)}
          onConfirm={() => {
            setAsking(null);
            void setAdmin(asking);
          }}
        />
      )}
    </article>
  );
}
