/**
 * Pure reducers: a batch of engine events → the next entity maps. The store applies one batch per
 * flush (≤ 10 a second), so a busy farm costs at most that many renders. Also reports whether the
 * queue's row order/membership or the counts may have changed, so the store knows what to refetch.
 */
import { isNextUp, type InstanceView, type JobView } from '../../shared/domain.js';
import type { WireEvent } from '../../shared/events.js';
import type { ForecastGroup, ForecastView } from '../../shared/forecast.js';
import { progressAfter, type JobMaps } from './job-map.js';

/** An event as the transports deliver it (only the wire topics reach the page). */
export type LiveEvent = WireEvent;

export interface Entities extends JobMaps {
  instances: Record<string, InstanceView>;
}

export interface BatchEffects {
  /** Some job changed state, priority or order, or many jobs changed: the queue list may be stale. */
  listStale: boolean;
  /** The farm status may have changed: job counts by state, or the farm's state (paused, stopped…). */
  countsStale: boolean;
  /** Any job event at all (views built from queries refetch, throttled). */
  jobsTouched: boolean;
  /** People were added, given roles or tokens, or revoked: the People panel refetches, the session is asked again. */
  peopleChanged: boolean;
  /** The latest forecast of the batch (forecast.changed), or null when it brought none. */
  forecast: ForecastView | null;
  /** Groups that turned late in this batch (forecast.late): each said once. */
  late: ForecastGroup[];
}

/** A change that can move a row in the list or out of the current filter. */
function movesRow(prev: JobView | undefined, next: JobView): boolean {
  return (
    !prev ||
    prev.state !== next.state ||
    prev.priority !== next.priority ||
    prev.rank !== next.rank ||
    prev.instanceId !== next.instanceId
  );
}

export function applyEvents(s: Entities, events: readonly LiveEvent[]): { next: Entities; effects: BatchEffects } {
  let jobs = s.jobs;
  let progress = s.progress;
  let instances = s.instances;
  const effects: BatchEffects = {
    listStale: false,
    countsStale: false,
    jobsTouched: false,
    peopleChanged: false,
    forecast: null,
    late: [],
  };
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
        // The blocked count changes without a change of state.
        // …nor does a prompt starting on its workstation (next → running).
        if (!prev || prev.state !== job.state || prev.blocked !== job.blocked || isNextUp(prev) !== isNextUp(job))
          effects.countsStale = true;
        effects.jobsTouched = true;
        jobsW()[job.id] = job;
        const held = progress[job.id];
        const after = progressAfter(job, held);
        if (after === held) break;
        if (after) progressW()[job.id] = after;
        else delete progressW()[job.id];
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
      case 'instance.changed': {
        // A workstation's own events do not say which engine drives it (a PostgreSQL farm's lease):
        // the card keeps what it was last told (farm.status, instances.list) until told again.
        const card = e.payload.instance;
        const driver = instances[card.id]?.engine;
        instancesW()[card.id] = card.engine === undefined && driver ? { ...card, engine: driver } : card;
        break;
      }
      case 'instance.removed':
        if (instances[e.payload.id]) delete instancesW()[e.payload.id];
        break;
      case 'farm.changed':
        effects.countsStale = true;
        // The rows' wait words ("the farm is paused", "waits for its storage") are built from the
        // farm's state when a row is read: the rows shown are read again (nothing is stored).
        effects.listStale = true;
        break;
      case 'people.changed':
        effects.peopleChanged = true;
        break;
      case 'forecast.changed':
        effects.forecast = e.payload.forecast;
        break;
      case 'forecast.late':
        effects.late.push(e.payload.group);
        break;
      case 'import.progress':
        // The Import dialog listens for its own import's progress itself; the store keeps none.
        break;
    }
  }
  return { next: { jobs, progress, instances }, effects };
}
