/**
 * The Electron main process: a thin shell (SPEC §10). It owns the window, the menu, the file
 * dialog, notifications and the engine host; the engine itself runs in a utility process and the
 * page reaches it only through the preload's bridge. Nothing here decides anything about jobs.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  app,
  type BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  net,
  Notification,
  protocol,
  safeStorage,
  session,
  shell,
} from 'electron';
import type { ErrorEnvelope } from '../../shared/errors.js';
import { APP_FOLDER } from '../engine/data-dir.js';
import type { AppView } from '../../shared/app-views.js';
import { ASSET_SCHEME, ASSET_SCHEME_PRIVILEGES, createAssetHandler } from './asset-protocol.js';
import { EngineHost } from './engine-host.js';
import { FARM_CHOICE_FILE, readFarmChoice, writeFarmChoice } from './farm-choice.js';
import type { CallTarget } from './ipc-policy.js';
import { RemoteCallTarget, StudioSession } from './studio-farm.js';
import { followStudioNotices } from './studio-notices.js';
import { studioPageHandler } from './studio-page.js';
import { SafeStorageTokenStore, TOKEN_FILE } from './token-store.js';
import { registerIpc, sendToPage } from './ipc.js';
import { readShotListFile } from './ipc-policy.js';
import { menuTemplate } from './menu.js';
import { JobNotifier, type JobNotice } from './notifications.js';
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
  const nativeBinding = sqliteBindingPath(
    app.isPackaged ? process.resourcesPath : app.getAppPath(),
    process.versions.electron,
    process.platform,
    process.arch,
  );
  // Quitting lets the engine finish its downloads in flight (up to 10 s, Scheduler.close) before it is killed.
  const host = new EngineHost({
    spawn: utilitySpawner({ entry: paths.engineEntry, dataDir, outputRoot, nativeBinding, log }),
    log,
    stopTimeoutMs: 20_000,
  });
  const notifier = new JobNotifier();
  let win: BrowserWindow | null = null;
  let quitting = false;
  // "This computer" (the engine host) or a studio farm (farm-choice.ts): decided once the app is ready.
  const choiceFile = join(userData, FARM_CHOICE_FILE);
  const tokens = new SafeStorageTokenStore(join(userData, TOKEN_FILE), safeStorage);
  let target: CallTarget = host;
  const relaunch = (): void => {
    app.relaunch();
    app.quit();
  };

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
    const hint =
      !app.isPackaged && e.details?.nativeBinding
        ? '\n\nBuild it with `npm run native:electron` (`npm start` does when it is missing).'
        : '';
    dialog.showErrorBox(title, `${e.message}${hint}`);
  };

  app.on('second-instance', focus);
  app.on('web-contents-created', (_event, contents) => hardenContents(contents, log));

  const showNotice = (notice: JobNotice | null): void => {
    if (!notice || !Notification.isSupported()) return;
    const n = new Notification({ title: notice.title, body: notice.body });
    n.on('click', () => showView(notice.kind === 'failed' ? 'failures' : 'queue'));
    n.show();
  };
  host.on('event', (topic, payload) => {
    sendToPage(page(), topic, payload);
    if (topic === 'job.changed') showNotice(notifier.consider(payload));
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
      await target.call(method, { by: 'desktop menu' });
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
      detail:
        'No new jobs are sent, running prompts are interrupted, and their jobs go back to the queue. The farm stays stopped, across restarts, until Resume Farm.',
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

  /** First start: which farm? "This computer" is kept; "Studio farm…" asks for the address and token in the window. */
  const askFarm = async (): Promise<boolean> => {
    const { response } = await dialog.showMessageBox({
      type: 'question',
      buttons: ['This Computer', 'Studio Farm…'],
      defaultId: 0,
      cancelId: 0,
      message: 'Where should Shotfarm run your shots?',
      detail:
        "This Computer: this app runs its own queue and farm. Studio Farm: join your studio's shared farm (a `shotfarm serve` host) with its address and your personal token. File → Work on This Computer / Join Studio Farm… changes it later.",
    });
    if (response === 0) writeFarmChoice(choiceFile, { mode: 'local' });
    return response === 1;
  };
  const switchToThisComputer = async (): Promise<void> => {
    const options = {
      type: 'question' as const,
      buttons: ['Work on This Computer', 'Cancel'],
      defaultId: 0,
      cancelId: 1,
      message: "Work on this computer's own farm?",
      detail: "Shotfarm restarts on its own engine and queue; the studio farm's token is forgotten on this computer.",
    };
    const { response } = win ? await dialog.showMessageBox(win, options) : await dialog.showMessageBox(options);
    if (response !== 0) return;
    writeFarmChoice(choiceFile, { mode: 'local' });
    tokens.clear();
    relaunch();
  };
  const askJoin = (): void => {
    focus();
    sendToPage(page(), 'shell.command', { command: 'join-studio' });
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

  void app.whenReady().then(async () => {
    // safeStorage answers only once the app is ready: the farm is decided here.
    const choice = readFarmChoice(choiceFile);
    const studioSession = new StudioSession({ choice, choiceFile, tokens, restart: relaunch });
    const studio = studioSession.farm();
    let joinFirst = false;
    if (choice === null) joinFirst = await askFarm();
    else if (choice.mode === 'studio' && !studio) {
      log("the studio farm's token could not be read (another user or machine key?): join it again");
      joinFirst = true;
    }
    hardenSession(session.defaultSession, paths.rendererDir, log, studio?.origin ?? null);
    if (studio) {
      // No local engine: the page talks to the farm, the menu's farm actions go there too.
      target = new RemoteCallTarget(studio);
      protocol.handle(
        'file',
        studioPageHandler(paths.indexHtml, studio.origin, (req) =>
          net.fetch(req, { bypassCustomProtocolHandlers: true }),
        ),
      );
      const stop = followStudioNotices(studio, notifier, (id) => studioSession.wasImportedHere(id), showNotice, log);
      app.once('will-quit', stop);
    }
    // Thumbnails: the engine says which file a ledger id is (assets.file), as it does for `serve`.
    protocol.handle(ASSET_SCHEME, createAssetHandler({ engine: host, log }));
    registerIpc({
      ipcMain,
      indexHtml: paths.indexHtml,
      host: target,
      exportDir,
      log,
      studio: studioSession,
      openShotList,
      chooseExportPath,
      reveal: (path) => shell.showItemInFolder(path),
    });
    Menu.setApplicationMenu(
      Menu.buildFromTemplate(
        menuTemplate(
          {
            importShotList: () => {
              focus();
              sendToPage(page(), 'shell.command', { command: 'import' });
            },
            stopFarm: () => void stopFarm(),
            pauseFarm: () => void farm('farm.pause'),
            resumeFarm: () => void farm('farm.resume'),
            showView,
            openDataFolder: () => void shell.openPath(dataDir),
            about: () =>
              void dialog.showMessageBox({
                title: 'About Shotfarm',
                message: `Shotfarm ${app.getVersion()}`,
                detail: studio ? `Studio farm: ${studio.origin}` : `Data: ${dataDir}`,
              }),
            useThisComputer: () => void switchToThisComputer(),
            joinStudioFarm: askJoin,
          },
          { platform: process.platform, devTools },
        ),
      ),
    );
    // utilityProcess.fork is only allowed once the app is ready. In studio mode no local engine runs.
    if (!studio) host.start();
    focus();
    // The page asks for its farm when it starts: it is told then to show the join form.
    if (joinFirst) studioSession.requestJoin();
  });
}
