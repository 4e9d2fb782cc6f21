/** Toasts: short operator messages (action results, errors) that go away by themselves. */
import type { GetState, SetState, UiSlice } from './types.js';

let nextId = 1;

export function createUiSlice(set: SetState, get: GetState): UiSlice {
  return {
    toasts: [],
    notify(kind, text) {
      const id = nextId++;
      set((s) => ({ toasts: [...s.toasts.slice(-3), { id, kind, text }] }));
      setTimeout(() => get().dismiss(id), kind === 'error' ? 9_000 : 4_000);
    },
    dismiss(id) {
      set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
    },
  };
}
