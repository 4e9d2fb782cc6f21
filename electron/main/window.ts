/**
 * The one app window: sandboxed, context-isolated, no Node in the page, loading only the built
 * renderer from disk. Its size and position are restored from and saved to userData.
 */
import { join } from 'node:path';
import { BrowserWindow, screen } from 'electron';
import { loadWindowState, MIN_SIZE, placeWindow, saveWindowState, WINDOW_STATE_FILE } from './window-state.js';
import type { AppPaths } from './paths.js';

export function createMainWindow(o: {
  paths: AppPaths;
  userData: string;
  devTools: boolean;
  log: (m: string) => void;
}): BrowserWindow {
  const stateFile = join(o.userData, WINDOW_STATE_FILE);
  const place = placeWindow(
    loadWindowState(stateFile),
    screen.getAllDisplays().map((d) => d.workArea),
  );
  const win = new BrowserWindow({
    ...(place.x !== undefined && place.y !== undefined ? { x: place.x, y: place.y } : {}),
    width: place.width,
    height: place.height,
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    title: 'Shotfarm',
    show: false,
    backgroundColor: '#16181c',
    webPreferences: {
      preload: o.paths.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
      // Middle-click on a link opens windows through a path setWindowOpenHandler does not see in old versions.
      disableBlinkFeatures: 'Auxclick',
      devTools: o.devTools,
    },
  });
  if (place.maximized) win.maximize();
  win.once('ready-to-show', () => win.show());
  win.on('close', () => {
    try {
      const b = win.getNormalBounds();
      saveWindowState(stateFile, { x: b.x, y: b.y, width: b.width, height: b.height, maximized: win.isMaximized() });
    } catch (err) {
      o.log(`could not save the window position: ${(err as Error).message}`);
    }
  });
  void win
    .loadFile(o.paths.indexHtml)
    .catch((err: unknown) => o.log(`could not load the app page: ${(err as Error).message}`));
  return win;
}
