/** Queue keyboard shortcuts: / search, Ctrl+A select all, Del cancel, T move to top, H hold, R release, Esc clear. */
import { useEffect, type RefObject } from 'react';
import { useAppStore } from '../../store/app-store.js';

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable);
}

export function useQueueKeys(searchRef: RefObject<HTMLInputElement | null>): void {
  const store = useAppStore();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (typing(e.target) || document.querySelector('.backdrop')) return;
      const s = store.getState();
      if (e.key === '/') {
        e.preventDefault();
        searchRef.current?.focus();
      } else if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'a') {
        e.preventDefault();
        void s.selectAll();
      } else if (e.ctrlKey || e.metaKey || e.altKey) {
        return;
      } else if (e.key === 'Delete') {
        void s.runAction('cancel');
      } else if (e.key === 't' || e.key === 'T') {
        void s.runAction('moveToTop');
      } else if (e.key === 'h' || e.key === 'H') {
        void s.runAction('hold');
      } else if (e.key === 'r' || e.key === 'R') {
        void s.runAction('release');
      } else if (e.key === 'Escape') {
        s.clearSelection();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store, searchRef]);
}
