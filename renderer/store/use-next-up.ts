/**
 * What a job next on its workstation (prefetch: its prompt waits there behind the running one)
 * waits for: the started prompt on the same workstation, and the ETA the job then has. One hook for
 * the queue row, the drawer and the card, so they say the same.
 */
import { isNextUp, type JobView } from '../../shared/domain.js';
import { etaOf, nextEta, type Eta } from '../lib/eta.js';
import { useApp } from './app-store.js';

export interface NextUp {
  /** The workstation's name (null: not known to the page yet). */
  instanceName: string | null;
  /** The job running there that this one waits behind, if the page holds it. */
  ahead: JobView | null;
  eta: Eta;
}

/** Null unless `job` is next on its workstation. */
export function useNextUp(job: JobView, now: number): NextUp | null {
  const next = isNextUp(job);
  const instanceName = useApp((s) => (next && job.instanceId ? (s.instances[job.instanceId]?.name ?? null) : null));
  const aheadId = useApp((s) => {
    if (!next || !job.instanceId) return null;
    for (const j of Object.values(s.jobs))
      if (j.id !== job.id && j.state === 'running' && j.instanceId === job.instanceId && !isNextUp(j)) return j.id;
    return null;
  });
  const ahead = useApp((s) => (aheadId ? (s.jobs[aheadId] ?? null) : null));
  const aheadProgress = useApp((s) => (aheadId ? s.progress[aheadId] : undefined));
  if (!next) return null;
  const aheadEta = ahead ? etaOf(ahead, aheadProgress ?? ahead.progress, now) : null;
  return { instanceName, ahead, eta: nextEta(job, aheadEta, instanceName) };
}
