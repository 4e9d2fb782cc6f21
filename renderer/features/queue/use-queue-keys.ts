/**
 * Queue keyboard shortcuts: / search, Ctrl+A select what the filter shows, Enter open the job's
 * drawer, ↑/↓ move through the rows, Del cancel (asks first for many or for running jobs), T move
 * to top, H hold, R release, Ctrl+Z undo the newest action still undoable, Esc close the drawer,
 * then clear the selection.
 */
import { useEffect, type RefObject } from 'react';
import { closeJob, openJob } from '../../lib/route.js';
import { undoableNow } from '../../lib/undo.js';
import { useAppStore } from '../../store/app-store.js';

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return (
    !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable)
  );
}

export function useQueueKeys(
  searchRef: RefObject<HTMLInputElement | null>,
  drawerOpen: boolean,
  scrollTo: (index: number) => void,
): void {
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
      } else if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === 'z') {
        // The newest undo still on offer (the action bar's Undo).
        const last = [...s.undoable].reverse().find((u) => undoableNow(u.undo, s.jobs).length > 0);
        if (last) {
          e.preventDefault();
          void s.undo(last.id);
        }
      } else if (e.ctrlKey || e.metaKey || e.altKey) {
        return;
      } else if (e.key === 'Enter') {
        const id = s.anchor !== null ? s.idAt(s.anchor) : undefined;
        if (id) openJob(id);
      } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const next = Math.max(0, Math.min(s.total - 1, (s.anchor ?? -1) + (e.key === 'ArrowDown' ? 1 : -1)));
        scrollTo(next);
        s.clickRow(next, { shift: false, toggle: false });
        // The drawer follows the row when it is open.
        const id = s.idAt(next);
        if (drawerOpen && id) openJob(id);
      } else if (e.key === 'Delete') {
        void s.runAction('cancel');
      } else if (e.key === 't' || e.key === 'T') {
        void s.runAction('moveToTop');
      } else if (e.key === 'h' || e.key === 'H') {
        void s.runAction('hold');
      } else if (e.key === 'r' || e.key === 'R') {
        void s.runAction('release');
      } else if (e.key === 'Escape') {
        if (drawerOpen) closeJob();
        else s.clearSelection();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store, searchRef, drawerOpen, scrollTo]);
}
