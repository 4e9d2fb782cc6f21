/**
 * The local-only methods (shared/api.ts, LOCAL_ONLY_METHODS) as a page's transports refuse them:
 * the headless server's API (with 403) and the desktop window's IPC (in the preload and again in the
 * main process). The Studio UI is the same page in a browser and in the app, and it shows shot-list
 * text from outside, so neither may choose programs to run, S3 secrets, where a freeze writes or
 * the farm settings; the CLI on this machine, and the desktop shell's own menus, call the engine
 * directly and may.
 */
import { LOCAL_ONLY_METHODS, type ApiMethod } from '../../../shared/api.js';
import { errorEnvelope, type ErrorEnvelope } from '../../../shared/errors.js';
import { apiBaseRefusal } from '../pools/runpod/api-base.js';
import { FARM_SETTINGS, FOLDER_SETTING_KEYS, isFarmSettingKey } from '../../../shared/farm-settings.js';

/** The envelope a page's transport answers for a local-only method, or null when the page may call it. */
export function localOnlyRefusal(method: ApiMethod): ErrorEnvelope | null {
  if (!LOCAL_ONLY_METHODS.has(method)) return null;
  return errorEnvelope('conflict', `${method} is only available from this machine's command line (shotfarm).`);
}

/**
 * The desktop window's page runs on the farm's own machine, so its Settings view may change the
 * farm's number settings (retries, timeouts, probes, fair share…) and its text setting
 * project_weights (fair-share weights: they only reorder the queue, as fair_share and move-to-top
 * already do from this page, and the same parser checks them in the page and in the engine). The
 * folder settings stay local-only there too: they point the engine at folders to write into, which
 * is the command line's to choose. A setting of any other type is refused until it is decided here.
 */
export function desktopPageRefusal(method: ApiMethod, input: unknown): ErrorEnvelope | null {
  if (method !== 'settings.set' && method !== 'settings.reset') return localOnlyRefusal(method) ?? apiBaseRefusal(method, input);
  const key = typeof input === 'object' && input !== null ? (input as { key?: unknown }).key : undefined;
  // Not a setting's key: the engine's own validation answers it (bad_input).
  if (!isFarmSettingKey(key)) return null;
  const type = FARM_SETTINGS[key].type;
  if (type === 'number' || type === 'text') return null;
  return errorEnvelope('conflict', `The folder settings (${FOLDER_SETTING_KEYS.join(', ')}) are changed on this machine's command line: shotfarm settings set KEY PATH.`);
}
