/** Hash routing between the views, and the queue's job drawer (no router library needed for a few fixed screens). */
import { useSyncExternalStore } from 'react';
import { hashOf, parseHash, type RoutePath } from './paths.js';
import type { AppView } from '../../shared/app-views.js';

let cachedHash = '';
let cached: RoutePath = { view: 'queue', jobId: null, params: '' };
/** The queue's filter the last time the queue was on screen: the Queue tab goes back to it. */
let queueParams = '';
const listeners = new Set<() => void>();

/** The same object while the hash is unchanged (useSyncExternalStore compares snapshots by identity). */
function current(): RoutePath {
  const h = window.location.hash;
  if (h !== cachedHash) {
    cachedHash = h;
    cached = parseHash(h);
    if (cached.view === 'queue') queueParams = cached.params;
  }
  return cached;
}

function subscribe(fn: () => void): () => void {
  // popstate too: walking back through entries pushed by pushState (a filter change) is not always a hashchange.
  window.addEventListener('hashchange', fn);
  window.addEventListener('popstate', fn);
  listeners.add(fn);
  return () => {
    window.removeEventListener('hashchange', fn);
    window.removeEventListener('popstate', fn);
    listeners.delete(fn);
  };
}

export function useRoute(): RoutePath {
  return useSyncExternalStore(subscribe, current);
}

export function useView(): AppView {
  return useRoute().view;
}

export function go(view: AppView): void {
  window.location.hash = hashOf({ view, jobId: null, params: view === 'queue' ? queueParams : '' });
}

/** Opens a job's drawer in the queue (the address names it, beside the queue's filter). */
export function openJob(id: string): void {
  window.location.hash = hashOf({ view: 'queue', jobId: id, params: queueParams });
}

/** Closes the drawer, staying in the queue. */
export function closeJob(): void {
  if (current().jobId) window.location.hash = hashOf({ view: 'queue', jobId: null, params: current().params });
}

/**
 * Writes the queue's filter into the address: `push` makes a history entry (back restores the
 * filter before), `replace` does not (a search typed letter by letter is one entry). Outside the
 * queue it is only remembered for the Queue tab.
 */
export function writeQueueParams(params: string, mode: 'push' | 'replace'): void {
  queueParams = params;
  const now = current();
  if (now.view !== 'queue' || now.params === params) return;
  const hash = hashOf({ ...now, params });
  if (mode === 'push') window.history.pushState(null, '', hash);
  else window.history.replaceState(null, '', hash);
  for (const fn of listeners) fn();
}
