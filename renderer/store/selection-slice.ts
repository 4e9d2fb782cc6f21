/**
 * Multi-select in the queue (click, shift-click range, ctrl/cmd-click toggle, select all) and the
 * bulk actions. Which actions apply comes from `actionAllowed` (shared/job-states.ts); only the
 * selected jobs an action applies to are sent, so a mixed selection does what it can.
 */
import { actionAllowed, type JobAction } from '../../shared/job-states.js';
import type { JobView } from '../../shared/domain.js';
import { errorMessage, type ShotfarmClient } from '../client/client.js';
import { cleanFilter } from './queue-slice.js';
import type { AppState, GetState, SelectionSlice, SetState } from './types.js';

const ALL_CHUNK = 5_000;

export const ACTION_LABEL: Record<JobAction, string> = {
  bump: 'Bump', moveToTop: 'Move to top', hold: 'Hold', release: 'Release', cancel: 'Cancel', retry: 'Retry', newTake: 'New take',
  uncancel: 'Undo cancel',
};

export function selectedJobs(s: Pick<AppState, 'selected' | 'jobs'>): JobView[] {
  const out: JobView[] = [];
  for (const id of s.selected) {
    const j = s.jobs[id];
    if (j) out.push(j);
  }
  return out;
}

export function applicableIds(jobs: readonly JobView[], action: JobAction): string[] {
  return jobs.filter((j) => actionAllowed(action, j.state)).map((j) => j.id);
}

export function createSelectionSlice(set: SetState, get: GetState, client: ShotfarmClient): SelectionSlice {
  return {
    selected: new Set(),
    anchor: null,
    clickRow(index, { shift, toggle }) {
      const s = get();
      const id = s.idAt(index);
      if (!id) return;
      if (shift && s.anchor !== null) {
        const next = new Set(toggle ? s.selected : []);
        const [a, b] = s.anchor < index ? [s.anchor, index] : [index, s.anchor];
        for (let i = a; i <= b; i++) {
          const rid = s.idAt(i);
          if (rid) next.add(rid);
        }
        set({ selected: next });
      } else if (toggle) {
        const next = new Set(s.selected);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        set({ selected: next, anchor: index });
      } else {
        set({ selected: new Set([id]), anchor: index });
      }
    },
    async selectAll() {
      // Ids of every matching job, in chunks (the contract has no ids-only listing yet).
      const { query, generation, total } = get();
      const ids = new Set<string>();
      try {
        for (let offset = 0; offset < Math.max(total, 1); offset += ALL_CHUNK) {
          const page = await client.call('jobs.list', { filter: cleanFilter(query.filter), sort: query.sort, descending: query.descending, offset, limit: ALL_CHUNK });
          if (get().generation !== generation) return;
          for (const r of page.rows) ids.add(r.id);
          set((s) => ({ jobs: Object.assign({ ...s.jobs }, Object.fromEntries(page.rows.map((r) => [r.id, r]))) }));
          if (page.rows.length < ALL_CHUNK) break;
        }
        set({ selected: ids });
      } catch (err) {
        get().notify('error', errorMessage(err));
      }
    },
    clearSelection() {
      set({ selected: new Set(), anchor: null });
    },
    async runAction(action, opts = {}) {
      const jobs = selectedJobs(get());
      const ids = applicableIds(jobs, action);
      if (ids.length === 0) return;
      try {
        let changed: JobView[];
        switch (action) {
          case 'bump': changed = await client.call('jobs.bump', { ids, priority: opts.priority ?? 'rush' }); break;
          case 'moveToTop': changed = await client.call('jobs.moveToTop', { ids }); break;
          case 'hold': changed = await client.call('jobs.hold', { ids }); break;
          case 'release': changed = await client.call('jobs.release', { ids }); break;
          case 'cancel': changed = await client.call('jobs.cancel', { ids }); break;
          case 'retry': changed = await client.call('jobs.retry', { ids }); break;
          case 'newTake': changed = await client.call('jobs.newTake', { ids }); break;
          case 'uncancel': changed = await client.call('jobs.uncancel', { ids }); break;
        }
        const skipped = jobs.length - ids.length;
        get().notify('success', `${ACTION_LABEL[action]}: ${changed.length} job${changed.length === 1 ? '' : 's'}${skipped ? ` (${skipped} not applicable, left alone)` : ''}.`);
        set((s) => ({ jobs: Object.assign({ ...s.jobs }, Object.fromEntries(changed.map((j) => [j.id, j]))) }));
        get().reloadVisible();
        get().refreshStatus();
      } catch (err) {
        get().notify('error', errorMessage(err));
      }
    },
  };
}
