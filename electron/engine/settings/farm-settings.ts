/**
 * The operator's farm settings in the store: one `settings` row per key set (`farm.setting.<key>`),
 * none for a key at its default. Every value is checked on the way in (type, bounds, and for
 * output_root an absolute, existing, writable folder) and again on the way out — a row may have been
 * edited by hand — so a bad value is refused with words naming what to fix and changes nothing.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ShotfarmError } from '../../../shared/errors.js';
import {
  FARM_SETTINGS,
  FARM_SETTING_KEYS,
  isFarmSettingKey,
  parseSettingValue,
  type FarmSettingKey,
  type FarmSettingView,
  type FolderSettingKey,
} from '../../../shared/farm-settings.js';
import type { Clock } from '../clock.js';
import { inTransaction, type Db } from '../store/database.js';
import { deleteSetting, settingRowsUnder, writeSetting } from '../store/settings-store.js';
import { entryOf } from './setting-entries.js';

const PREFIX = 'farm.setting.';

export type StoredSettings = Partial<Record<FarmSettingKey, number | string>>;

/** The settings an operator set, each re-checked; `problems` names the rows that fail, with the fix. */
export function readFarmSettings(db: Db): {
  values: StoredSettings;
  updatedAt: Partial<Record<FarmSettingKey, number>>;
  updatedBy: Partial<Record<FarmSettingKey, string>>;
  problems: string[];
} {
  const values: StoredSettings = {};
  const updatedAt: Partial<Record<FarmSettingKey, number>> = {};
  const updatedBy: Partial<Record<FarmSettingKey, string>> = {};
  const problems: string[] = [];
  for (const row of settingRowsUnder(db, PREFIX)) {
    const key = row.key.slice(PREFIX.length);
    // A key this version does not know (written by a newer one) is left alone.
    if (!isFarmSettingKey(key)) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(row.value_json);
    } catch {
      raw = undefined;
    }
    const parsed = parseSettingValue(key, raw);
    if (!parsed.ok) {
      problems.push(
        `the stored ${key} is invalid (${parsed.message}); the default applies until it is fixed: shotfarm settings reset ${key}`,
      );
      continue;
    }
    values[key] = parsed.value;
    updatedAt[key] = row.updated_at;
    if (row.updated_by !== null) updatedBy[key] = row.updated_by;
  }
  return { values, updatedAt, updatedBy, problems };
}

/** A folder setting must be a folder that exists here and that this user may write into. */
function checkFolder(key: FarmSettingKey, path: string): string {
  if (!isAbsolute(path))
    throw new ShotfarmError(
      'bad_input',
      `${key} must be an absolute folder path on this machine; got "${path.slice(0, 200)}"`,
    );
  const folder = resolve(path);
  let isDir: boolean;
  try {
    isDir = statSync(folder).isDirectory();
  } catch {
    throw new ShotfarmError(
      'bad_input',
      `${key}: ${folder} does not exist; create the folder first, or choose another`,
    );
  }
  if (!isDir) throw new ShotfarmError('bad_input', `${key}: ${folder} is not a folder`);
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new ShotfarmError(
      'bad_input',
      `${key}: ${folder} is not writable by this user; fix its permissions, or choose another folder`,
    );
  }
  return folder;
}

/**
 * Sets one setting, and in the same transaction runs its change hook (setting-entries.ts). Returns
 * the jobs whose row changed with it (a new retry_attempts is every unfinished job's budget), for
 * the caller to announce.
 */
/** Sets a farm setting and records who set it (`by`: a person's name, or `local`). */
export function setFarmSetting(db: Db, clock: Clock, key: FarmSettingKey, raw: unknown, by: string): string[] {
  const parsed = parseSettingValue(key, raw);
  if (!parsed.ok) throw new ShotfarmError('bad_input', parsed.message);
  const value =
    typeof parsed.value === 'string' && FARM_SETTINGS[key].type === 'folder'
      ? checkFolder(key, parsed.value)
      : parsed.value;
  return inTransaction(db, () => {
    const now = clock.now();
    writeSetting(db, PREFIX + key, value, now, by);
    return entryOf(key).changed?.(db, value, now) ?? [];
  });
}

/** Back to the default (no row), and its change hook given the table's default. Returns the jobs whose row changed with it. */
export function resetFarmSetting(db: Db, clock: Clock, key: FarmSettingKey): string[] {
  return inTransaction(db, () => {
    deleteSetting(db, PREFIX + key);
    return entryOf(key).changed?.(db, FARM_SETTINGS[key].default, clock.now()) ?? [];
  });
}

/** The engine's own folder for each folder setting (`<data>/outputs`, `<data>/releases`): what unset means. */
export type FolderDefaults = Readonly<Record<FolderSettingKey, string>>;

/** What a setting is when unset: the shared table's default, for a folder the engine's own. */
export function defaultOf(key: FarmSettingKey, folders: FolderDefaults): number | string {
  const def = FARM_SETTINGS[key];
  return def.type === 'folder' ? folders[key as FolderSettingKey] : def.default;
}

/** Every setting with its value now; a stored value that fails its check is a storage error naming the fix. */
export function farmSettingViews(db: Db, folders: FolderDefaults): FarmSettingView[] {
  const { values, updatedAt, updatedBy, problems } = readFarmSettings(db);
  if (problems.length) throw new ShotfarmError('storage', `Farm settings: ${problems.join('; ')}.`);
  return FARM_SETTING_KEYS.map((key) => {
    const def = FARM_SETTINGS[key];
    const dflt = defaultOf(key, folders);
    const set = values[key];
    return {
      key,
      type: def.type,
      unit: def.type === 'number' ? def.unit : null,
      value: set ?? dflt,
      default: dflt,
      min: def.type === 'number' ? def.min : null,
      max: def.type === 'number' ? def.max : null,
      description: def.description,
      isSet: set !== undefined,
      updatedAt: updatedAt[key] ?? null,
      updatedBy: updatedBy[key] ?? null,
    };
  });
}

/** What the farm's rows say now, exactly: a running engine compares it at each tick to notice a change made elsewhere. */
export function farmRowsFingerprint(db: Db): string {
  return settingRowsUnder(db, 'farm.')
    .map((r) => `${r.key}=${r.value_json}`)
    .join('\n');
}
