/** Toasts: short operator messages (action results, errors) that go away by themselves. */
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
  return {
    toasts: [],
    notify(kind, text) {
      const id = nextId++;
      // At most four at once: the oldest ones make room (and take their timers with them).
      for (const old of get().toasts.slice(0, -3)) stopTimer(old.id);
      set((s) => ({ toasts: [...s.toasts.slice(-3), { id, kind, text }] }));
      timers.set(id, setTimeout(() => get().dismiss(id), kind === 'error' ? 9_000 : 4_000));
    },
    dismiss(id) {
      stopTimer(id);
      set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
    },
  };
}
