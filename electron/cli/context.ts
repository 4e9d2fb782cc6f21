/** What every CLI command needs: the engine on the chosen data folder, and how to print. */
import { Engine } from '../engine/engine.js';
import { defaultDataDir } from '../engine/data-dir.js';

export interface GlobalOptions {
  data?: string;
  json?: boolean;
}

export function openEngine(opts: GlobalOptions): Engine {
  return new Engine({ dataDir: opts.data ?? defaultDataDir() });
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
