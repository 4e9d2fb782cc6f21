/**
 * Reads and writes the `hooks` setting. Every write is validated, and so is every read: the
 * settings row could have been edited by hand, and a hook must never run from text that does not
 * pass the schema.
 */
import { ShotfarmError } from '../../../shared/errors.js';
import { describeIssues } from '../../../shared/shot-list-schema.js';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { readSetting, writeSetting } from '../store/settings-store.js';
import { hookSchema, hooksSchema, type HookConfig } from '../../../shared/hooks.js';

export const HOOKS_SETTING = 'hooks';

export function getHooks(db: Db): HookConfig[] {
  return (
    readSetting(db, HOOKS_SETTING, hooksSchema, {
      badJson: 'The hooks setting is not valid JSON; clear it (shotfarm hooks clear) and add the hooks again.',
      invalid: (issues) =>
        `The hooks setting is invalid (${issues}); no hook will run until it is fixed (shotfarm hooks clear, then add them again).`,
    }) ?? []
  );
}

/** Replaces the whole list (the UI's settings form). */
export function setHooks(db: Db, clock: Clock, hooks: unknown): HookConfig[] {
  const parsed = hooksSchema.safeParse(hooks);
  if (!parsed.success)
    throw new ShotfarmError('bad_input', `Invalid hooks: ${describeIssues(parsed.error).join('; ')}`);
  writeSetting(db, HOOKS_SETTING, parsed.data, clock.now());
  return parsed.data;
}

export function addHook(db: Db, clock: Clock, hook: unknown): HookConfig {
  const parsed = hookSchema.safeParse(hook);
  if (!parsed.success) throw new ShotfarmError('bad_input', `Invalid hook: ${describeIssues(parsed.error).join('; ')}`);
  return db.transaction(() => {
    const hooks = getHooks(db);
    if (hooks.some((h) => h.id === parsed.data.id)) {
      throw new ShotfarmError(
        'conflict',
        `A hook is already named "${parsed.data.id}"; remove it first or choose another name.`,
      );
    }
    setHooks(db, clock, [...hooks, parsed.data]);
    return parsed.data;
  });
}

export function removeHook(db: Db, clock: Clock, id: string): void {
  db.transaction(() => {
    const hooks = getHooks(db);
    if (!hooks.some((h) => h.id === id)) throw new ShotfarmError('not_found', `No hook is named "${id}".`);
    setHooks(
      db,
      clock,
      hooks.filter((h) => h.id !== id),
    );
  });
}
