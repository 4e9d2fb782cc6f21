/**
 * Pure reducers: a batch of engine events → the next entity maps. The store applies one batch per
 * flush (≤ 10 a second), so a busy farm costs at most that many renders. Also reports whether the
 * queue's row order/membership or the counts may have changed, so the store knows what to refetch.
 */
import type { InstanceView, JobProgress, JobView } from '../../shared/domain.js';
import type { WireEvent } from '../../shared/events.js';

/** An event as the transports deliver it (only the wire topics reach the page). */
export type LiveEvent = WireEvent;

export interface Entities {
  jobs: Record<string, JobView>;
  progress: Record<string, JobProgress>;
  instances: Record<string, InstanceView>;
}

export interface BatchEffects {
  /** Some job changed state, priority or order, or many jobs changed: the queue list may be stale. */
  listStale: boolean;
  /** The farm status may have changed: job counts by state, or the farm's state (paused, stopped…). */
  countsStale: boolean;
  /** Any job event at all (views built from queries refetch, throttled). */
  jobsTouched: boolean;
}

/** A change that can move a row in the list or out of the current filter. */
function movesRow(prev: JobView | undefined, next: JobView): boolean {
  return !prev || prev.state !== next.state || prev.priority !== next.priority || prev.rank !== next.rank || prev.instanceId !== next.instanceId;
}

export function applyEvents(s: Entities, events: readonly LiveEvent[]): { next: Entities; effects: BatchEffects } {
  let jobs = s.jobs;
  let progress = s.progress;
  let instances = s.instances;
  const effects: BatchEffects = { listStale: false, countsStale: false, jobsTouched: false };
  const own = { jobs: false, progress: false, instances: false };
  // Copy each map at most once per batch.
  const jobsW = () => (own.jobs ? jobs : ((own.jobs = true), (jobs = { ...jobs })));
  const progressW = () => (own.progress ? progress : ((own.progress = true), (progress = { ...progress })));
  const instancesW = () => (own.instances ? instances : ((own.instances = true), (instances = { ...instances })));

  for (const e of events) {
    switch (e.topic) {
      case 'job.changed': {
        const job = e.payload.job;
        const prev = jobs[job.id];
        if (movesRow(prev, job)) effects.listStale = true;
        if (!prev || prev.state !== job.state) effects.countsStale = true;
        effects.jobsTouched = true;
        jobsW()[job.id] = job;
        if (job.state !== 'running') {
          if (progress[job.id]) delete progressW()[job.id];
        } else if (job.progress && !progress[job.id]) {
          progressW()[job.id] = job.progress;
        }
        break;
      }
      case 'job.progress': {
        const cur = jobs[e.payload.jobId];
        // A late progress frame for a job that already finished must not resurrect its bar.
        if (cur && cur.state !== 'running') break;
        progressW()[e.payload.jobId] = e.payload.progress;
        break;
      }
      case 'jobs.bulkChanged':
        effects.listStale = true;
        effects.countsStale = true;
        effects.jobsTouched = true;
        break;
      case 'instance.changed':
        instancesW()[e.payload.instance.id] = e.payload.instance;
        break;
      case 'instance.removed':
        if (instances[e.payload.id]) delete instancesW()[e.payload.id];
        break;
      case 'farm.changed':
        effects.countsStale = true;
        break;
    }
  }
  return { next: { jobs, progress, instances }, effects };
}

/** Merges freshly fetched rows into the job map, keeping progress in step with the rows. */
export function mergeJobs(s: Entities, rows: readonly JobView[]): Pick<Entities, 'jobs' | 'progress'> {
  if (rows.length === 0) return { jobs: s.jobs, progress: s.progress };
  const jobs = { ...s.jobs };
  let progress = s.progress;
  for (const r of rows) {
    jobs[r.id] = r;
    if (r.state === 'running' && r.progress && !progress[r.id]) progress = { ...progress, [r.id]: r.progress };
    if (r.state !== 'running' && progress[r.id]) {
      progress = { ...progress };
      delete progress[r.id];
    }
  }
  return { jobs, progress };
}
