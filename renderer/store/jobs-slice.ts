/**
 * The job map's one writer. Every path that brings job rows goes through `upsertJobs` — a page of
 * the queue, an action's answer, an undo's answer, select-all's chunks, the drawer's fetch — and
 * engine events through `applyBatch`; both apply job-map.ts's rule, so a job's live progress never
 * outlives its running row (a cancelled job shows no bar, and a retried one starts from its own
 * frames). The other slices get a setter whose type refuses `jobs` and `progress` (types.ts); this
 * slice alone is given the store's own setter, by app-store.ts.
 */
import type { JobView } from '../../shared/domain.js';
import type { ShotfarmClient } from '../client/client.js';
import { throttle } from '../lib/throttle.js';
import { withRows } from './job-map.js';
import { applyEvents } from './reducers.js';
import { forecastWords, groupName } from '../../shared/forecast.js';
import type { AppState, GetState, JobsSlice } from './types.js';

/** The store's own setter: may write any key, the job map's included. Only app-store.ts hands it out, to this slice. */
export type StoreSetter = (partial: Partial<AppState> | ((s: AppState) => Partial<AppState>)) => void;

export function createJobsSlice(set: StoreSetter, get: GetState, client: ShotfarmClient): JobsSlice {
  const reload = throttle(() => get().reloadVisible(), 500);
  const upsertJobs = (rows: readonly JobView[]): void => {
    if (rows.length) set((s) => withRows(s, rows));
  };
  return {
    jobs: {},
    progress: {},
    upsertJobs,
    async loadJob(id) {
      const job = await client.call('jobs.get', { id });
      upsertJobs([job]);
      return job;
    },
    applyBatch(batch) {
      const s = get();
      const { next, effects } = applyEvents(s, batch);
      set({ ...next, ...(effects.jobsTouched ? { liveTick: s.liveTick + 1 } : {}) });
      // A selected job whose change takes it out of the filter (a cancel, a completion in Active) leaves the selection.
      if (s.selected.size)
        get().pruneSelection(batch.flatMap((e) => (e.topic === 'job.changed' ? [e.payload.job.id] : [])));
      if (effects.countsStale) get().refreshStatus();
      if (effects.peopleChanged) get().peopleChanged();
      if (effects.forecast) get().setForecast(effects.forecast);
      for (const g of effects.late) get().notify('error', `${groupName(g)} is late: ${forecastWords(g, Date.now())}`);
      if (effects.listStale) {
        // Marked now, not when the throttled reload runs: the counts may arrive before the rows.
        get().markListStale();
        reload();
      }
    },
  };
}
