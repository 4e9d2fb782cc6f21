/** Hash routing between the views (no router library needed for a handful of fixed screens). */
import { useSyncExternalStore } from 'react';
import { isView, VIEWS, type View } from './views.js';

export { VIEWS, type View };

function current(): View {
  const h = window.location.hash.replace(/^#\/?/, '');
  return isView(h) ? h : 'queue';
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
