/**
 * The one reader of the farm settings outside the settings module: `ctx.settings.get(key)` (the
 * engine context's SettingsPort), typed by the key. A value set by any process (a CLI `settings
 * set`, the app) applies at the next use: the farm's rows are read again whenever the store says a
 * write happened since (settingsVersion: SQLite's data_version for other connections, a count of
 * this one's writes), else the values read last are answered — every row parsed and checked once
 * per change, not once per call. Defaults come from the shared table only (a folder: the engine's
 * own). The running farm's decisions read the live SchedulerConfig instead (setting-entries.ts).
 * test/architecture-settings-reader.test.ts holds that nothing else reads a setting row or a default.
 */
import type { FarmSettingKey } from '../../../shared/farm-settings.js';
import type { Db } from '../store/database.js';
import { settingsVersion } from '../store/settings-store.js';
import { defaultOf, readFarmSettings, type FolderDefaults, type StoredSettings } from './farm-settings.js';
import type { SettingValue } from './setting-entries.js';

export type { SettingValue } from './setting-entries.js';

export interface SettingsReader {
  /** The value in force now: the operator's (re-checked on the way out), else the default. */
  get<K extends FarmSettingKey>(key: K): SettingValue<K>;
}

/** The reader over `db`; `folders` are the engine's own folders (what a folder setting is when unset). */
export function storedSettings(db: Db, folders: FolderDefaults): SettingsReader {
  let read: { at: string; values: StoredSettings } | null = null;
  const values = (): StoredSettings => {
    const at = settingsVersion(db);
    if (at === null) return readFarmSettings(db).values;
    if (read?.at !== at) read = { at, values: readFarmSettings(db).values };
    return read.values;
  };
  return {
    get<K extends FarmSettingKey>(key: K): SettingValue<K> {
      // readFarmSettings returns each key's value checked against its own definition: the type follows the key.
      return (values()[key] ?? defaultOf(key, folders)) as SettingValue<K>;
    },
  };
}
