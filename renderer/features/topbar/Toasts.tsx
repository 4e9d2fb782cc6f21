/**
 * Operator messages in the corner; errors stay longer and can be dismissed. A message offering an
 * Undo shows its button while the undo is possible — while some of its jobs are still where the
 * action put them — for 15 s; the undo then stays on offer on the queue's action bar (UndoLast).
 */
import { useEffect } from 'react';
import { undoableNow } from '../../lib/undo.js';
import { useApp } from '../../store/app-store.js';
import type { Toast } from '../../store/types.js';

function ToastItem({ t }: { t: Toast }) {
  const dismiss = useApp((s) => s.dismiss);
  const undo = useApp((s) => s.undo);
  const expire = useApp((s) => s.expireUndo);
  const possible = useApp((s) => (t.undo ? undoableNow(t.undo, s.jobs).length : 0));
  useEffect(() => {
    if (t.undo && possible === 0) expire(t.id);
  }, [t.undo, possible, expire, t.id]);
  return (
    <div className={`toast toast-${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'} data-testid="toast">
      <span>{t.text}</span>
      {t.undo && possible > 0 && (
        <button type="button" className="btn btn-sm" onClick={() => void undo(t.id)} data-testid="undo">
          Undo
        </button>
      )}
      <button type="button" className="icon-btn" onClick={() => dismiss(t.id)} aria-label="Dismiss">
        ×
      </button>
    </div>
  );
}

export function Toasts() {
  const toasts = useApp((s) => s.toasts);
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((t) => (
        <ToastItem key={t.id} t={t} />
      ))}
    </div>
  );
}
