/** Hash routing between the views, and the queue's job drawer (no router library needed for a few fixed screens). */
import { useSyncExternalStore } from 'react';
import { hashOf, parseHash, type RoutePath } from './paths.js';
import type { AppView } from '../../shared/app-views.js';

let cachedHash = '';
let cached: RoutePath = { view: 'queue', jobId: null };

/** The same object while the hash is unchanged (useSyncExternalStore compares snapshots by identity). */
function current(): RoutePath {
  const h = window.location.hash;
  if (h !== cachedHash) {
    cachedHash = h;
    cached = parseHash(h);
  }
  return cached;
}

function subscribe(fn: () => void): () => void {
  window.addEventListener('hashchange', fn);
  return () => window.removeEventListener('hashchange', fn);
}

export function useRoute(): RoutePath {
  return useSyncExternalStore(subscribe, current);
}

export function useView(): AppView {
  return useRoute().view;
}

export function go(view: AppView): void {
  window.location.hash = hashOf({ view, jobId: null });
}

/** Opens a job's drawer in the queue (the address names it). */
export function openJob(id: string): void {
  window.location.hash = hashOf({ view: 'queue', jobId: id });
}

/** Closes the drawer, staying in the queue. */
export function closeJob(): void {
  if (current().jobId) window.location.hash = hashOf({ view: 'queue', jobId: null });
}
