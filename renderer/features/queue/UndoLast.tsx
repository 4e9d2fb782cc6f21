/**
 * The newest action that can still be undone, on the action bar after its toast has gone (Ctrl+Z
 * does the same). An undo no longer possible — its jobs moved on — leaves, and the one before it shows.
 */
import { useEffect } from 'react';
import { undoableNow } from '../../lib/undo.js';
import { useApp } from '../../store/app-store.js';

export function UndoLast() {
  const entry = useApp((s) => s.undoable.at(-1) ?? null);
  const possible = useApp((s) => (entry ? undoableNow(entry.undo, s.jobs).length : 0));
  const undo = useApp((s) => s.undo);
  const expire = useApp((s) => s.expireUndo);
  useEffect(() => {
    if (entry && possible === 0) expire(entry.id);
  }, [entry, possible, expire]);
  if (!entry || possible === 0) return null;
  return (
    <button
      type="button"
      className="btn btn-sm btn-ghost undo-last truncate"
      onClick={() => void undo(entry.id)}
      title={`Undo: ${entry.text} (Ctrl+Z)`}
      data-testid="undo-last"
    >
      ↶ Undo <span className="muted">{entry.text.replace(/\.$/, '')}</span>
    </button>
  );
}
