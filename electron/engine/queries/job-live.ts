/**
 * The live parts of running jobs' views: what the attempt is doing and how far through its workflow
 * it is (the farm's memory, when a farm runs in this process), whether its workstation answers (the
 * store: a CLI in another process sees it too), and how long such runs usually take. Every job view
 * an API answer or an event carries passes through here.
 */
import { hasStarted, type AttemptView, type JobView } from '../../../shared/domain.js';
import { BACKLOG_STATES } from '../../../shared/job-states.js';
import type { AttemptWatchView } from '../pools/comfy-lan/attempt-watch.js';
import type { LivePhases } from '../pools/comfy-lan/live-attempts.js';
import { openRunsOf } from '../store/attempt-store.js';
import type { Db } from '../store/database.js';
import { runEstimates } from './run-estimates.js';
import { forecastEndOf } from '../forecast/forecast-ends.js';

/** What the farm running in this process holds in memory about its open attempts. */
export interface LiveFarm {
  readonly live: LivePhases;
  readonly watch: AttemptWatchView;
}

export function withLive(db: Db, farm: LiveFarm | null, views: JobView[], now: number): JobView[] {
  const estimates = runEstimates(db);
  // Every announced change passes through here: a completion is the moment a median may move.
  if (views.some((v) => v.state === 'completed')) estimates.completed();
  // A waiting job's ETA: where the last forecast placed it (a lookup, never a forecast per view).
  for (const v of views) if (BACKLOG_STATES.includes(v.state)) v.forecastEnd = forecastEndOf(db, v.id);
  const running = views.filter((v) => v.state === 'running');
  if (running.length === 0) return views;
  // Their open attempts, and only theirs (this runs for every announced change): a few statements for all of them.
  const runs = new Map(
    openRunsOf(
      db,
      running.map((v) => v.id),
    ).map((r) => [r.job_id, r]),
  );
  for (const v of running) {
    v.attempt = farm?.live.ofJob(v.id) ?? null;
    // The store's start is the claim; the view says when the prompt really started on its GPU, and
    // nothing while it waits there (next, behind the running one): no "started", no elapsed time.
    if (v.attempt) v.startedAt = hasStarted(v.attempt.phase) ? (v.attempt.startedAt ?? v.startedAt) : null;
    const key = runs.get(v.id);
    v.contact =
      key && key.contact_lost_at !== null && key.requeue_at !== null
        ? {
            instanceName: key.instance_name ?? 'its workstation',
            lostAt: key.contact_lost_at,
            requeueAt: key.requeue_at,
          }
        : null;
    v.estimate = key?.gpu_name ? estimates.of(key.template_id, key.gpu_name, key.params_json, now) : null;
    const nodes = key ? farm?.watch.nodes(key.attempt_id) : null;
    if (nodes && v.progress) v.progress = { ...v.progress, ...nodes };
  }
  return views;
}

/** An open attempt shows its live phase and prompt number instead of the stored `claimed`. */
export function attemptsWithLive(live: LivePhases | null | undefined, views: AttemptView[]): AttemptView[] {
  if (!live) return views;
  for (const v of views) {
    if (v.state === 'ended') continue;
    const a = live.ofAttempt(v.id);
    if (!a) continue;
    v.state = a.phase;
    v.promptNumber ??= a.promptNumber;
    v.startedAt = hasStarted(a.phase) ? (v.startedAt ?? a.startedAt) : null;
  }
  return views;
}
