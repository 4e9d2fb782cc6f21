/**
 * Reads and writes the `hooks` setting. Every write is validated, and so is every read: the
 * settings row could have been edited by hand, and a hook must never run from text that does not
 * pass the schema.
 */
import { ShotfarmError } from '../../../shared/errors.js';
import { describeIssues } from '../../../shared/shot-list-schema.js';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { stmt } from '../store/statements.js';
import { hookSchema, hooksSchema, type HookConfig } from '../../../shared/hooks.js';

export const HOOKS_SETTING = 'hooks';

/** One setting's JSON text. */
const GET_SETTING = 'SELECT value_json FROM settings WHERE key = ?';
/** Insert or replace one setting. */
const PUT_SETTING = `INSERT INTO settings (key, value_json, updated_at) VALUES (?, ?, ?)
  ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at`;

export function getHooks(db: Db): HookConfig[] {
  const row = stmt(db, GET_SETTING).get(HOOKS_SETTING) as { value_json: string } | undefined;
  if (!row) return [];
  let value: unknown;
  try {
    value = JSON.parse(row.value_json);
  } catch {
    throw new ShotfarmError('storage', 'The hooks setting is not valid JSON; clear it (shotfarm hooks clear) and add the hooks again.');
  }
  const parsed = hooksSchema.safeParse(value);
  if (!parsed.success) {
    throw new ShotfarmError('storage', `The hooks setting is invalid (${describeIssues(parsed.error).join('; ')}); no hook will run until it is fixed (shotfarm hooks clear, then add them again).`);
  }
  return parsed.data;
}

/** Replaces the whole list (the UI's settings form). */
export function setHooks(db: Db, clock: Clock, hooks: unknown): HookConfig[] {
  const parsed = hooksSchema.safeParse(hooks);
  if (!parsed.success) throw new ShotfarmError('bad_input', `Invalid hooks: ${describeIssues(parsed.error).join('; ')}`);
  stmt(db, PUT_SETTING).run(HOOKS_SETTING, JSON.stringify(parsed.data), clock.now());
  return parsed.data;
}

export function addHook(db: Db, clock: Clock, hook: unknown): HookConfig {
  const parsed = hookSchema.safeParse(hook);
  if (!parsed.success) throw new ShotfarmError('bad_input', `Invalid hook: ${describeIssues(parsed.error).join('; ')}`);
  return db.transaction(() => {
    const hooks = getHooks(db);
    if (hooks.some((h) => h.id === parsed.data.id)) {
      throw new ShotfarmError('conflict', `A hook is already named "${parsed.data.id}"; remove it first or choose another name.`);
    }
    setHooks(db, clock, [...hooks, parsed.data]);
    return parsed.data;
  }).immediate();
}

export function removeHook(db: Db, clock: Clock, id: string): void {
  db.transaction(() => {
    const hooks = getHooks(db);
    if (!hooks.some((h) => h.id === id)) throw new ShotfarmError('not_found', `No hook is named "${id}".`);
    setHooks(db, clock, hooks.filter((h) => h.id !== id));
  }).immediate();
}
