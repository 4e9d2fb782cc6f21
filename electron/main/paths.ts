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

/**
 * The Electron build of better-sqlite3 that the engine process loads: `<root>/native/electron-<version>-
 * <platform>-<arch>/better_sqlite3.node`, where root is the checkout in `npm start` (bin/desktop/
 * native-binding.mjs builds it there) and the resources folder in a package (electron-builder.yml
 * copies native/ there). Versioned, so an Electron upgrade never loads a stale build.
 */
export function sqliteBindingPath(root: string, electronVersion: string, platform: string, arch: string): string {
  return join(root, 'native', `electron-${electronVersion}-${platform}-${arch}`, 'better_sqlite3.node');
}
