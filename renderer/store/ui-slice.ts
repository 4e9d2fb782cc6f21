/**
 * Toasts — short operator messages that go away by themselves, except one offering an Undo, which
 * stays while the undo is possible — and the one confirmation dialog a risky action opens.
 */
import type { GetState, SetState, UiSlice } from './types.js';

let nextId = 1;

export function createUiSlice(set: SetState, get: GetState): UiSlice {
  // Each toast's own timer, cleared when it is dismissed earlier: a closed toast leaves nothing
  // running behind it (a test process, or a window being torn down, would wait for it).
  const timers = new Map<number, ReturnType<typeof setTimeout>>();
  const stopTimer = (id: number): void => {
    clearTimeout(timers.get(id));
    timers.delete(id);
  };
  const startTimer = (id: number, kind: string): void => {
    stopTimer(id);
    timers.set(id, setTimeout(() => get().dismiss(id), kind === 'error' ? 9_000 : 4_000));
  };
  return {
    toasts: [],
    notify(kind, text, undo) {
      const id = nextId++;
      // At most four at once: the oldest ones make room (and take their timers with them).
      for (const old of get().toasts.slice(0, -3)) stopTimer(old.id);
      set((s) => ({ toasts: [...s.toasts.slice(-3), { id, kind, text, ...(undo ? { undo } : {}) }] }));
      if (!undo) startTimer(id, kind);
    },
    expireUndo(id) {
      const t = get().toasts.find((x) => x.id === id);
      if (!t?.undo) return;
      set((s) => ({ toasts: s.toasts.map((x) => (x.id === id ? { id: x.id, kind: x.kind, text: x.text } : x)) }));
      startTimer(id, t.kind);
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
