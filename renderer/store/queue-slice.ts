/**
 * The queue list: only the rows' ids, fetched in pages of PAGE_SIZE as the table scrolls (100k rows
 * never sit in the page at once). Job data lives in the entity map, so a `job.changed` re-renders
 * its row without any refetch; only order/membership changes reload the pages on screen.
 */
import type { JobFilter } from '../../shared/api.js';
import { errorMessage, type ShotfarmClient } from '../client/client.js';
import { DEFAULT_STATES } from '../lib/queue-views.js';
import type { GetState, QueueQuery, QueueSlice, SetState } from './types.js';

export const PAGE_SIZE = 100;

/** Drops empty fields: an empty search or state list means "no filter", not "match nothing". */
export function cleanFilter(f: JobFilter): JobFilter {
  const out: JobFilter = {};
  for (const [k, v] of Object.entries(f) as [keyof JobFilter, unknown][]) {
    if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    (out as Record<string, unknown>)[k] = typeof v === 'string' ? v.trim() : v;
  }
  return out;
}

export function createQueueSlice(set: SetState, get: GetState, client: ShotfarmClient): QueueSlice {
  const inflight = new Set<string>();

  async function fetchPage(page: number, replace: boolean): Promise<void> {
    const { generation, query, listStaleSeq } = get();
    const key = `${generation}:${page}`;
    if (inflight.has(key)) return;
    inflight.add(key);
    try {
      const res = await client.call('jobs.list', {
        filter: cleanFilter(query.filter),
        sort: query.sort,
        descending: query.descending,
        offset: page * PAGE_SIZE,
        limit: PAGE_SIZE,
      });
      if (get().generation !== generation) return;
      // A row in a state the page had not heard of yet (its event still on the way): the counts
      // are as stale as the row was, and that event will no longer look like a change.
      const known = get().jobs;
      const moved = res.rows.some((r) => known[r.id] !== undefined && known[r.id]?.state !== r.state);
      // Rows first, so a page on screen never names a job the map does not hold.
      get().upsertJobs(res.rows);
      set((s) => ({
        total: res.total,
        pages: { ...s.pages, [page]: res.rows.map((r) => r.id) },
        listFreshSeq: Math.max(s.listFreshSeq, listStaleSeq),
      }));
      if (moved) get().refreshStatus();
    } catch (err) {
      if (get().generation === generation && !replace)
        get().notify('error', `Could not load the queue: ${errorMessage(err)}`);
    } finally {
      inflight.delete(key);
    }
  }

  const pagesIn = (start: number, end: number): number[] => {
    const out: number[] = [];
    for (let p = Math.floor(Math.max(0, start) / PAGE_SIZE); p <= Math.floor(Math.max(0, end) / PAGE_SIZE); p++)
      out.push(p);
    return out;
  };

  // The default view is Active: running, next up, blocked, retrying, held — Done is one click away.
  const initial: QueueQuery = { filter: { states: [...DEFAULT_STATES] }, sort: 'queue', descending: false };
  return {
    query: initial,
    total: 0,
    pages: {},
    generation: 0,
    visible: [0, 40],
    listStaleSeq: 0,
    listFreshSeq: 0,
    markListStale() {
      set((s) => ({ listStaleSeq: s.listStaleSeq + 1 }));
    },
    setQuery(patch) {
      set((s) => ({ query: { ...s.query, ...patch }, generation: s.generation + 1, pages: {}, anchor: null }));
      // What the new filter hides leaves the selection; what it still shows stays selected.
      get().pruneSelection();
      get().reloadVisible();
    },
    setFilter(patch) {
      get().setQuery({ filter: { ...get().query.filter, ...patch } });
    },
    showRange(start, end) {
      set({ visible: [start, end] });
      const { pages } = get();
      for (const p of pagesIn(start, end)) if (!pages[p]) void fetchPage(p, false);
    },
    reloadVisible() {
      const [start, end] = get().visible;
      const keep = new Set(pagesIn(start, end));
      // Pages off screen are dropped (refetched when scrolled to); pages on screen stay until replaced.
      set((s) => ({ pages: Object.fromEntries(Object.entries(s.pages).filter(([p]) => keep.has(Number(p)))) }));
      for (const p of keep) void fetchPage(p, true);
    },
    idAt(index) {
      return get().pages[Math.floor(index / PAGE_SIZE)]?.[index % PAGE_SIZE];
    },
  };
}
