/**
 * Every folder output_root was ever set to (`farm.output_roots`): ledger files written there stay
 * servable after output_root changes. Written by output_root's change hook (setting-entries.ts).
 */
import { z } from 'zod';
import type { Db } from '../store/database.js';
import { readSetting, writeSetting } from '../store/settings-store.js';

const ROOTS_KEY = 'farm.output_roots';
const rootsSchema = z.array(z.string());

export function usedRoots(db: Db): string[] {
  return (
    readSetting(db, ROOTS_KEY, rootsSchema, {
      badJson: 'The list of output folders used is not valid JSON; set output_root again.',
      invalid: (issues) => `The list of output folders used is invalid (${issues}); set output_root again.`,
    }) ?? []
  );
}

/** Adds `root` to the folders used (once). */
export function rememberRoot(db: Db, root: string, now: number): void {
  const roots = usedRoots(db);
  if (!roots.includes(root)) writeSetting(db, ROOTS_KEY, [...roots, root], now);
}
