/**
 * The operator's saved queue views (a filter, a sort and its direction, under a name), kept in this
 * browser's localStorage. What is read back is validated like anything from outside: an entry that
 * no longer fits the contract's filter (an older version, a hand edit) is dropped, not trusted.
 * The storage is passed in, so this stays DOM-free and testable.
 */
import { z } from 'zod';
import { jobFilterSchema, JOB_SORT_KEYS, type JobFilter } from '../../shared/api.js';

export const SAVED_VIEWS_KEY = 'shotfarm.queue.views';
const MAX_VIEWS = 30;

const savedViewSchema = z.object({
  name: z.string().trim().min(1).max(60),
  filter: jobFilterSchema,
  sort: z.enum(JOB_SORT_KEYS),
  descending: z.boolean(),
});
export type SavedView = { name: string; filter: JobFilter; sort: (typeof JOB_SORT_KEYS)[number]; descending: boolean };

/** The part of the browser's Storage used here (declared here: this module is DOM-free). */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export function readViews(store: KeyValueStore): SavedView[] {
  let raw: unknown;
  try {
    raw = JSON.parse(store.getItem(SAVED_VIEWS_KEY) ?? '[]');
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((v) => {
    const parsed = savedViewSchema.safeParse(v);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Saves under `view.name`, replacing a view of that name; the newest first. */
export function saveView(store: KeyValueStore, view: SavedView): SavedView[] {
  const next = [view, ...readViews(store).filter((v) => v.name !== view.name)].slice(0, MAX_VIEWS);
  store.setItem(SAVED_VIEWS_KEY, JSON.stringify(next));
  return next;
}

export function deleteView(store: KeyValueStore, name: string): SavedView[] {
  const next = readViews(store).filter((v) => v.name !== name);
  store.setItem(SAVED_VIEWS_KEY, JSON.stringify(next));
  return next;
}
