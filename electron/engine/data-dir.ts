/**
 * Where Shotfarm keeps its database by default: the same per-user folder Electron's
 * `app.getPath('userData')` gives the desktop app (so the CLI and the app share one store), worked
 * out here without importing Electron. `SHOTFARM_DATA` (in the environment the host passes) or
 * `--data DIR` override it.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { EngineEnv } from './engine-env.js';

export const APP_FOLDER = 'Shotfarm';

export function defaultDataDir(env: EngineEnv, platform: NodeJS.Platform = process.platform): string {
  if (env.SHOTFARM_DATA) return env.SHOTFARM_DATA;
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), APP_FOLDER);
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', APP_FOLDER);
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), APP_FOLDER);
}
