/**
 * Where the built pieces are, relative to the compiled main process (dist/electron/main/): the same
 * layout in `npm start` and inside the packaged app.asar.
 */
import { join, resolve } from 'node:path';

export interface AppPaths {
  /** dist/renderer: the only folder the window may load files from. */
  rendererDir: string;
  indexHtml: string;
  /** The bundled, sandbox-compatible preload. */
  preload: string;
  /** The engine process entry (a utilityProcess). */
  engineEntry: string;
}

export function appPaths(mainDir: string): AppPaths {
  const rendererDir = resolve(mainDir, '../../renderer');
  return {
    rendererDir,
    indexHtml: join(rendererDir, 'index.html'),
    preload: resolve(mainDir, '../preload/preload.cjs'),
    engineEntry: join(mainDir, 'engine-process.js'),
  };
}
