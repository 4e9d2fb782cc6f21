/**
 * Toasts — short operator messages that go away by themselves; one offering an Undo stays a little
 * longer, and its undo stays on offer on the action bar (and Ctrl+Z) while it is possible, so no
 * toast has to sit over the queue for it — and the one confirmation dialog a risky action opens.
 */
import { undosOf } from '../lib/undo.js';
import type { GetState, SetState, UiSlice } from './types.js';

let nextId = 1;

/** How long a toast shows: errors longer; one offering an Undo long enough to read and reach it. */
const TOAST_MS = { info: 4_000, success: 4_000, error: 9_000, undo: 15_000 } as const;
/** How many undos the action bar keeps on offer. */
export const UNDO_KEPT = 10;

export function createUiSlice(set: SetState, get: GetState): UiSlice {
  // Each toast's own timer, cleared when it is dismissed earlier: a closed toast leaves nothing
  // running behind it (a test process, or a window being torn down, would wait for it).
  const timers = new Map<number, ReturnType<typeof setTimeout>>();
  const stopTimer = (id: number): void => {
    clearTimeout(timers.get(id));
    timers.delete(id);
  };
  const startTimer = (id: number, kind: keyof typeof TOAST_MS): void => {
    stopTimer(id);
    timers.set(
      id,
      setTimeout(() => get().dismiss(id), TOAST_MS[kind]),
    );
  };
  return {
    toasts: [],
    undoable: [],
    notify(kind, text, undo) {
      const id = nextId++;
      // At most four at once: the oldest ones make room (and take their timers with them).
      for (const old of get().toasts.slice(0, -3)) stopTimer(old.id);
      set((s) => ({
        toasts: [...s.toasts.slice(-3), { id, kind, text, ...(undo ? { undo } : {}) }],
        undoable: undo
          ? [...s.undoable, { id, text, undo, by: s.session?.name ?? null }].slice(-UNDO_KEPT)
          : s.undoable,
      }));
      startTimer(id, undo ? 'undo' : kind);
    },
    expireUndo(id) {
      const t = get().toasts.find((x) => x.id === id);
      set((s) => ({
        undoable: s.undoable.filter((u) => u.id !== id),
        toasts: s.toasts.map((x) => (x.id === id ? { id: x.id, kind: x.kind, text: x.text } : x)),
      }));
      if (t?.undo) startTimer(id, t.kind);
    },
    keepUndosOf(session) {
      const kept = undosOf(get().undoable, session);
      for (const u of get().undoable) if (!kept.includes(u)) get().expireUndo(u.id);
    },
    dismiss(id) {
      stopTimer(id);
      set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
    },
    confirm: null,
    ask(c) {
      set({ confirm: c });
    },
    answer(yes) {
      const c = get().confirm;
      set({ confirm: null });
      if (yes) c?.onConfirm();
    },
  };
}
