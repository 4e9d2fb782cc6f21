/**
 * The Electron main process: a thin shell (SPEC §10). It owns the window, the menu, the file
 * dialog, notifications and the engine host; the engine itself runs in a utility process and the
 * page reaches it only through the preload's bridge. Nothing here decides anything about jobs.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, Menu, Notification, protocol, session, shell } from 'electron';
import type { ErrorEnvelope } from '../../shared/errors.js';
import { APP_FOLDER } from '../engine/data-dir.js';
import type { AppView } from '../preload/channels.js';
import { ASSET_SCHEME, ASSET_SCHEME_PRIVILEGES, createAssetHandler } from './asset-protocol.js';
import { EngineHost } from './engine-host.js';
import { registerIpc, sendToPage } from './ipc.js';
import { readShotListFile } from './ipc-policy.js';
import { menuTemplate } from './menu.js';
import { JobNotifier } from './notifications.js';
import { appPaths, sqliteBindingPath } from './paths.js';
import { hardenContents, hardenSession } from './security.js';
import { utilitySpawner } from './utility-spawn.js';
import { createMainWindow } from './window.js';

const log = (m: string): void => void process.stderr.write(`shotfarm: ${m}\n`);
const paths = appPaths(fileURLToPath(new URL('.', import.meta.url)));

// Before `ready`: the same per-user folder as the CLI's default (electron/engine/data-dir.ts), whatever
// the package name; and every renderer sandboxed, whatever a window asks for.
app.setPath('userData', join(app.getPath('appData'), APP_FOLDER));
app.enableSandbox();
// Custom schemes get their privileges only before `ready`: the thumbnails' scheme (asset-protocol.ts).
protocol.registerSchemesAsPrivileged([ASSET_SCHEME_PRIVILEGES]);

if (!app.requestSingleInstanceLock()) {
  // Another Shotfarm is running on this data folder: it gets focused (second-instance) and we leave.
  app.quit();
} else {
  boot();
}

function boot(): void {
  const userData = app.getPath('userData');
  const dataDir = process.env.SHOTFARM_DATA || userData;
  const exportDir = join(dataDir, 'exports');
  // The engine's default output folder, passed to it explicitly so both processes agree on it.
  const outputRoot = join(dataDir, 'outputs');
  const devTools = !app.isPackaged;
  const nativeBinding = sqliteBindingPath(app.isPackaged ? process.resourcesPath : app.getAppPath(), process.versions.electron, process.platform, process.arch);
  // Quitting lets the engine finish its downloads in flight (up to 10 s, Scheduler.close) before it is killed.
  const host = new EngineHost({ spawn: utilitySpawner({ entry: paths.engineEntry, dataDir, outputRoot, nativeBinding, log }), log, stopTimeoutMs: 20_000 });
  const notifier = new JobNotifier();
  let win: BrowserWindow | null = null;
  let quitting = false;

  const page = () => (win && !win.isDestroyed() ? win.webContents : null);
  const focus = (): void => {
    if (!win || win.isDestroyed()) {
      win = createMainWindow({ paths, userData, devTools, log });
      return;
    }
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  };
  const showView = (view: AppView): void => {
    focus();
    sendToPage(page(), 'shell.command', { command: 'show-view', view });
  };
  const showError = (title: string, e: ErrorEnvelope): void => {
    // No usable Electron build of better-sqlite3 in a checkout: say how to fix it rather than only why.
    const hint = !app.isPackaged && e.details?.nativeBinding ? '\n\nBuild it with `npm run native:electron` (`npm start` does when it is missing).' : '';
    dialog.showErrorBox(title, `${e.message}${hint}`);
  };

  app.on('second-instance', focus);
  app.on('web-contents-created', (_event, contents) => hardenContents(contents, log));

  host.on('event', (topic, payload) => {
    sendToPage(page(), topic, payload);
    if (topic !== 'job.changed') return;
    const notice = notifier.consider(payload);
    if (!notice || !Notification.isSupported()) return;
    const n = new Notification({ title: notice.title, body: notice.body });
    n.on('click', () => showView(notice.kind === 'failed' ? 'failures' : 'queue'));
    n.show();
  });
  host.on('restarted', (notice) => {
    log(`engine restarted (${notice.restarts} so far): ${notice.reason}`);
    sendToPage(page(), 'engine.restarted', notice);
  });
  host.on('failed', (error) => {
    if (!quitting) showError('The Shotfarm engine stopped', error);
  });

  const farm = async (method: 'farm.stop' | 'farm.pause' | 'farm.resume'): Promise<void> => {
    try {
      await host.call(method, { by: 'desktop menu' });
    } catch (err) {
      const e = (err as { envelope?: ErrorEnvelope }).envelope;
      const what = { 'farm.stop': 'stop', 'farm.pause': 'pause', 'farm.resume': 'resume' }[method];
      showError(`Could not ${what} the farm`, e ?? { code: 'internal', message: String(err), retryable: false });
    }
  };
  const stopFarm = async (): Promise<void> => {
    const options = {
      type: 'warning' as const,
      buttons: ['Stop Farm', 'Cancel'],
      defaultId: 1,
      cancelId: 1,
      message: 'Stop the farm?',
      detail: 'No new jobs are sent, running prompts are interrupted, and their jobs go back to the queue. The farm stays stopped, across restarts, until Resume Farm.',
    };
    const { response } = win ? await dialog.showMessageBox(win, options) : await dialog.showMessageBox(options);
    if (response === 0) await farm('farm.stop');
  };
  const openShotList = async () => {
    const options = {
      title: 'Import Shot List',
      properties: ['openFile' as const],
      filters: [{ name: 'Shot lists', extensions: ['json', 'csv', 'tsv', 'txt'] }],
    };
    const r = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
    const file = r.canceled ? undefined : r.filePaths[0];
    return file ? readShotListFile(file) : null;
  };

  const chooseExportPath = async (defaultName: string): Promise<string | null> => {
    const options = {
      title: 'Export CSV',
      defaultPath: join(app.getPath('documents'), defaultName),
      filters: [{ name: 'CSV', extensions: ['csv'] }],
      // No overwrite prompt where the platform lets us leave it out: the engine never replaces a file.
      properties: ['createDirectory' as const],
    };
    const r = win ? await dialog.showSaveDialog(win, options) : await dialog.showSaveDialog(options);
    return r.canceled || !r.filePath ? null : r.filePath;
  };

  app.on('before-quit', (event) => {
    if (quitting || host.status === 'stopped' || host.status === 'failed' || host.status === 'idle') return;
    // Close the engine cleanly first (the database is closed, the scheduler stops following).
    event.preventDefault();
    quitting = true;
    void host.stop().finally(() => app.quit());
  });
  app.on('window-all-closed', () => {
    // On macOS the app (and the farm) keeps running without a window, as Mac apps do.
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', focus);

  void app.whenReady().then(() => {
    hardenSession(session.defaultSession, paths.rendererDir, log);
    // Thumbnails: the engine says which file a ledger id is (assets.file), as it does for `serve`.
    protocol.handle(ASSET_SCHEME, createAssetHandler({ engine: host, log }));
    registerIpc({
      ipcMain, indexHtml: paths.indexHtml, host, exportDir, log,
      openShotList,
      chooseExportPath,
      reveal: (path) => shell.showItemInFolder(path),
    });
    Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate({
      importShotList: () => {
        focus();
        sendToPage(page(), 'shell.command', { command: 'import' });
      },
      stopFarm: () => void stopFarm(),
      pauseFarm: () => void farm('farm.pause'),
      resumeFarm: () => void farm('farm.resume'),
      showView,
      openDataFolder: () => void shell.openPath(dataDir),
      about: () => void dialog.showMessageBox({ title: 'About Shotfarm', message: `Shotfarm ${app.getVersion()}`, detail: `Data: ${dataDir}` }),
    }, { platform: process.platform, devTools })));
    // utilityProcess.fork is only allowed once the app is ready.
    host.start();
    focus();
  });
}
