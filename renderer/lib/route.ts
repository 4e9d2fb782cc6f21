/** Hash routing between the five views (no router library needed for five fixed screens). */
import { useSyncExternalStore } from 'react';

export const VIEWS = ['queue', 'workstations', 'failures', 'timeline', 'ledger'] as const;
export type View = (typeof VIEWS)[number];

function current(): View {
  const h = window.location.hash.replace(/^#\/?/, '');
  return (VIEWS as readonly string[]).includes(h) ? (h as View) : 'queue';
}

function subscribe(fn: () => void): () => void {
  window.addEventListener('hashchange', fn);
  return () => window.removeEventListener('hashchange', fn);
}

export function useView(): View {
  return useSyncExternalStore(subscribe, current);
}

export function go(view: View): void {
  window.location.hash = `#/${view}`;
}
