/**
 * The live parts of running jobs' views: what the attempt is doing (the farm's memory, when a farm
 * runs in this process) and whether its workstation answers (the store: a CLI in another process
 * sees it too). Every job view an API answer or an event carries passes through here.
 */
import type { AttemptView, JobView } from '../../../shared/domain.js';
import type { LivePhases } from '../scheduler/live-attempts.js';
import { openContactLosses } from '../store/attempt-store.js';
import type { Db } from '../store/database.js';

export function withLive(db: Db, live: LivePhases | null, views: JobView[]): JobView[] {
  const running = views.filter((v) => v.state === 'running');
  if (running.length === 0) return views;
  const lost = new Map(openContactLosses(db).map((r) => [r.job_id, r]));
  for (const v of running) {
    v.attempt = live?.ofJob(v.id) ?? null;
    const c = lost.get(v.id);
    v.contact = c ? { instanceName: c.instance_name ?? 'its workstation', lostAt: c.contact_lost_at, requeueAt: c.requeue_at } : null;
  }
  return views;
}

/** An open attempt shows its live phase and prompt number instead of the stored `claimed`. */
export function attemptsWithLive(live: LivePhases | null, views: AttemptView[]): AttemptView[] {
  if (!live) return views;
  for (const v of views) {
    if (v.state === 'ended') continue;
    const a = live.ofAttempt(v.id);
    if (!a) continue;
    v.state = a.phase;
    v.promptNumber ??= a.promptNumber;
  }
  return views;
}
