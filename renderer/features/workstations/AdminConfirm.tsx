/**
 * Drain or Disable, confirmed in words that say what happens to a running prompt. Neither
 * interrupts it (the scheduler only stops giving the workstation new work): it finishes on ComfyUI
 * and its output is collected. Draining stays healthy; disabled counts as not healthy.
 */
import { useShallow } from 'zustand/react/shallow';
import { Confirm } from '../../components/Confirm.js';
import { useApp } from '../../store/app-store.js';

function Running({ ids }: { ids: readonly string[] }) {
  const jobs = useApp(useShallow((s) => ids.map((id) => s.jobs[id])));
  const names = jobs.map((j, n) => (j ? `${j.shot} · ${j.stage} · take ${j.take}` : `job ${ids[n]?.slice(0, 8)}`));
  return <b>{names.join(', ')}</b>;
}

export function AdminConfirm({
  name,
  to,
  runningJobIds,
  onConfirm,
  onCancel,
}: {
  name: string;
  to: 'draining' | 'disabled';
  runningJobIds: readonly string[];
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const running = runningJobIds.length > 0;
  const drain = to === 'draining';
  return (
    <Confirm
      title={`${drain ? 'Drain' : 'Disable'} ${name}?`}
      confirmLabel={drain ? `Drain ${name}` : `Disable ${name}`}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p data-testid="admin-effect">
        {running ? (
          <>
            {name} is rendering <Running ids={runningJobIds} />. That prompt is <b>not interrupted</b>: it finishes on
            ComfyUI and its output is collected. Then {name} takes no new work.
          </>
        ) : (
          <>{name} is not rendering anything now; it takes no new work.</>
        )}
      </p>
      <p className="muted">
        {drain
          ? `It stays draining — still probed and counted healthy — until you enable it again. Use it before maintenance.`
          : `It counts as disabled (not healthy) until you enable it again. To stop a running prompt, cancel its job in the Queue or stop the farm.`}
      </p>
    </Confirm>
  );
}
