/**
 * The main process's decisions, run in Node: IPC on fixed channels with a sender check, what the
 * handlers answer, which requests and frames are trusted, the CSP, the menu, window placement.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { IpcMain } from 'electron';
import { LOCAL_ONLY_METHODS } from '../../shared/methods.js';
import { ShotfarmError } from '../../shared/errors.js';
import { desktopPageRefusal } from '../../electron/engine/hosting/reach-refusal.js';
import { registerIpc } from '../../electron/main/ipc.js';
import {
  answerCall,
  answerSaveExport,
  checkRevealPath,
  PickedFolders,
  readShotListFile,
} from '../../electron/main/ipc-policy.js';
import { menuTemplate, type MenuActions } from '../../electron/main/menu.js';
import { appPaths } from '../../electron/main/paths.js';
import { CSP_HEADER, CSP_META, isAllowedRequest, isTrustedSender } from '../../electron/main/security.js';
import { loadWindowState, placeWindow, saveWindowState } from '../../electron/main/window-state.js';
import { CHANNELS } from '../../electron/preload/channels.js';
import { REPO } from '../helpers/engine.js';
import { makeTempDir } from '../helpers/temp-dir.js';

// Where an installed app would be: a made-up folder under the OS temp dir (nothing is read there).
const INSTALLED = join(tmpdir(), 'Shotfarm', 'resources', 'app.asar');
const paths = appPaths(join(INSTALLED, 'dist', 'electron', 'main'));
/** Paths on this machine outside any folder the tests make: a save dialog's answer, a file to escape to. */
const ELSEWHERE = join(tmpdir(), 'shotfarm-elsewhere');
const page = (url: string, parent: unknown = null) => ({ senderFrame: { url, parent } });

function fakeIpcMain() {
  const handlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
  const ipcMain = {
    handle: (channel: string, fn: (event: unknown, ...args: unknown[]) => unknown) => void handlers.set(channel, fn),
  };
  return { ipcMain: ipcMain as unknown as IpcMain, handlers };
}

test('the built app is laid out as the main process expects', () => {
  assert.equal(paths.indexHtml, join(INSTALLED, 'dist', 'renderer', 'index.html'));
  assert.equal(paths.preload, join(INSTALLED, 'dist', 'electron', 'preload', 'preload.cjs'));
  assert.equal(paths.engineEntry, join(INSTALLED, 'dist', 'electron', 'main', 'engine-process.js'));
});

test("IPC is handled on the fixed channels only, and only for the app page's top frame", async () => {
  const { ipcMain, handlers } = fakeIpcMain();
  const calls: unknown[] = [];
  const revealed: string[] = [];
  registerIpc({
    ipcMain,
    indexHtml: paths.indexHtml,
    exportDir: join(INSTALLED, 'exports'),
    log: () => undefined,
    host: { call: async (method, input) => (calls.push([method, input]), 'answer') },
    openShotList: async () => null,
    chooseExportPath: async () => null,
    reveal: (p) => revealed.push(p),
  });
  assert.deepEqual(
    [...handlers.keys()].sort(),
    [
      CHANNELS.call,
      CHANNELS.openShotList,
      CHANNELS.revealFile,
      CHANNELS.saveExport,
      CHANNELS.studio,
      CHANNELS.joinStudio,
      CHANNELS.importedHere,
    ].sort(),
  );
  const call = handlers.get(CHANNELS.call);
  assert.ok(call);

  const own = page(`${pathToFileURL(paths.indexHtml).href}#/queue`);
  assert.deepEqual(await call(own, 'farm.status', {}), { ok: true, result: 'answer' });
  for (const stranger of [
    page('https://evil.example/index.html'),
    page(pathToFileURL(join(tmpdir(), 'index.html')).href),
    page(pathToFileURL(paths.indexHtml).href, { url: 'parent frame' }),
    { senderFrame: null },
  ]) {
    assert.throws(() => call(stranger, 'farm.status', {}), /may not use Shotfarm/);
  }
  assert.equal(calls.length, 1);
  assert.deepEqual(await handlers.get(CHANNELS.openShotList)?.(own), { ok: true, result: null });
  assert.deepEqual(await handlers.get(CHANNELS.revealFile)?.(own, 'relative/file.png'), {
    ok: false,
    error: { code: 'bad_input', message: 'Only absolute paths on this computer can be shown.', retryable: false },
  });
  assert.deepEqual(revealed, []);
  assert.deepEqual(
    await handlers.get(CHANNELS.saveExport)?.(own, 'runlog', {}),
    { ok: true, result: null },
    'a cancelled save dialog',
  );
  assert.throws(
    () => handlers.get(CHANNELS.saveExport)?.(page('https://evil.example/'), 'runlog', {}),
    /may not use Shotfarm/,
  );
});

test('a desktop export goes where the save dialog says: a dated name proposed, the page never names a path', async () => {
  const seen: unknown[] = [];
  const target = {
    call: async (method: string, input: unknown) => (
      seen.push([method, input]), { path: (input as { path: string }).path, rows: 3, bytes: 99 }
    ),
  };
  const proposed: string[] = [];
  const at = new Date(2026, 11, 1, 14, 3, 9);
  const chooser = (answer: string | null) => async (name: string) => (proposed.push(name), answer);
  assert.deepEqual(await answerSaveExport(target, 'runlog', { project: 'Moonfall' }, chooser(null), at), {
    ok: true,
    result: null,
  });
  assert.deepEqual(
    await answerSaveExport(target, 'runlog', { project: 'Moonfall' }, chooser(join(ELSEWHERE, 'ep101')), at),
    {
      ok: true,
      result: { path: join(ELSEWHERE, 'ep101.csv'), rows: 3, bytes: 99 },
    },
  );
  assert.deepEqual(proposed, ['shotfarm-runlog-2026-12-01_14-03-09.csv', 'shotfarm-runlog-2026-12-01_14-03-09.csv']);
  assert.deepEqual(seen, [['export.runlog', { project: 'Moonfall', path: join(ELSEWHERE, 'ep101.csv') }]]);
  for (const [kind, filter] of [
    ['passwd', {}],
    ['ledger', { path: join(ELSEWHERE, 'passwd') }],
    ['ledger', { from: 'yesterday' }],
  ] as const) {
    const r = await answerSaveExport(target, kind, filter, chooser(join(ELSEWHERE, 'x.csv')), at);
    assert.equal(r.ok ? 'ok' : r.error.code, 'bad_input', `${kind} ${JSON.stringify(filter)}`);
  }
  assert.equal(seen.length, 1, 'nothing exported for a refused request');
  const failing = {
    call: async () => {
      throw new ShotfarmError(
        'conflict',
        `${join(ELSEWHERE, 'x.csv')} already exists; it was left as it is. Choose another file name.`,
      );
    },
  };
  const exists = await answerSaveExport(failing, 'ledger', {}, chooser(join(ELSEWHERE, 'x.csv')), at);
  assert.equal(exists.ok ? 'ok' : exists.error.code, 'conflict');
});

test('answerCall refuses unknown and local-only methods and exports outside the save dialog, and passes envelopes through', async (t) => {
  const tmp = makeTempDir('shotfarm-ipc-');
  t.after(tmp.cleanup);
  const seen: unknown[] = [];
  const target = { call: async (method: string, input: unknown) => (seen.push([method, input]), { ok: 1 }) };
  assert.deepEqual(await answerCall(target, 'process.exit', {}, { exportDir: tmp.path, picked: new PickedFolders() }), {
    ok: false,
    error: { code: 'not_found', message: 'Unknown method process.exit.', retryable: false },
  });
  // Whatever the preload let through: the page is refused what a browser page of `serve` is.
  // (The settings with a folder's key: the desktop's Settings view may change the number settings.)
  for (const method of LOCAL_ONLY_METHODS) {
    const input = method.startsWith('settings.') ? { key: 'output_root' } : {};
    assert.deepEqual(
      await answerCall(target, method, input, { exportDir: tmp.path, picked: new PickedFolders() }),
      { ok: false, error: desktopPageRefusal(method, input) },
      method,
    );
    assert.notEqual(desktopPageRefusal(method, input), null, method);
  }
  assert.deepEqual(seen, [], 'the engine is never asked');
  // The number settings and project_weights (fair-share weights, text) reach the engine.
  for (const input of [
    { key: 'prefetch', value: 0 },
    { key: 'project_weights', value: 'Moonfall=3' },
  ]) {
    assert.deepEqual(
      await answerCall(target, 'settings.set', input, { exportDir: tmp.path, picked: new PickedFolders() }),
      { ok: true, result: { ok: 1 } },
      input.key,
    );
  }
  seen.length = 0;
  const failing = {
    call: async () => {
      throw new ShotfarmError('conflict', 'Job is running.');
    },
  };
  assert.deepEqual(await answerCall(failing, 'jobs.hold', {}, { exportDir: tmp.path, picked: new PickedFolders() }), {
    ok: false,
    error: { code: 'conflict', message: 'Job is running.', retryable: false },
  });
  // Exports take the save-export channel (the save dialog chooses the path): through call, none.
  for (const [method, path] of [
    ['export.runlog', 'runlog.csv'],
    ['export.ledger', join(ELSEWHERE, '.bashrc')],
  ] as const) {
    const a = await answerCall(target, method, { path }, { exportDir: tmp.path, picked: new PickedFolders() });
    assert.equal(a.ok ? 'ok' : a.error.code, 'forbidden', method);
  }
  assert.deepEqual(seen, [], 'the engine is never asked');
});

test('a chosen shot list is read with its folder; unreadable and oversized files become envelopes', async (t) => {
  const tmp = makeTempDir('shotfarm-shotlist-');
  t.after(tmp.cleanup);
  const file = join(tmp.path, 'ep101.csv');
  writeFileSync(file, 'Shot,Stage\nsh010,keyframe\n');
  assert.deepEqual(await readShotListFile(file), {
    fileName: 'ep101.csv',
    content: 'Shot,Stage\nsh010,keyframe\n',
    baseDir: tmp.path,
  });
  await assert.rejects(readShotListFile(file, 4), (e: unknown) => e instanceof ShotfarmError && e.code === 'bad_input');
  await assert.rejects(
    readShotListFile(join(tmp.path, 'missing.json')),
    (e: unknown) => e instanceof ShotfarmError && e.code === 'storage',
  );
  mkdirSync(join(tmp.path, 'dir.json'));
  await assert.rejects(
    readShotListFile(join(tmp.path, 'dir.json')),
    (e: unknown) => e instanceof ShotfarmError && e.code === 'bad_input',
  );
});

test('revealFile accepts existing absolute paths only', async (t) => {
  const tmp = makeTempDir('shotfarm-reveal-');
  t.after(tmp.cleanup);
  const file = join(tmp.path, 'sh010.png');
  writeFileSync(file, '');
  assert.deepEqual(await checkRevealPath(file), { ok: true, path: file });
  for (const bad of [42, '', 'sh010.png', '//server/share/x.png', `${file}\0.txt`]) {
    assert.equal((await checkRevealPath(bad)).ok, false, String(bad));
  }
  const missing = await checkRevealPath(join(tmp.path, 'gone.png'));
  assert.equal(!missing.ok && missing.error.code, 'not_found');
});

test("only the app's own files and in-memory data may be requested; the network and other files may not", () => {
  const dir = join(INSTALLED, 'dist', 'renderer');
  const file = (...parts: string[]) => pathToFileURL(join(dir, ...parts)).href;
  assert.ok(isAllowedRequest(file('index.html'), dir));
  assert.ok(isAllowedRequest(file('assets', 'index-abc.js'), dir));
  assert.ok(isAllowedRequest('data:image/png;base64,AAAA', dir));
  for (const url of [
    'https://cdn.example.com/x.js',
    'http://127.0.0.1:8188/prompt',
    'ws://gpu-01:8188/ws',
    pathToFileURL(join(ELSEWHERE, 'passwd')).href,
    `${pathToFileURL(dir).href}/../electron/main/main.js`,
    pathToFileURL(`${dir}-evil/x.js`).href,
    'ftp://x/y',
    'not a url',
  ]) {
    assert.equal(isAllowedRequest(url, dir), false, url);
  }
});

test('the sender check accepts the app page with a hash or query, nothing else', () => {
  const index = join(INSTALLED, 'dist', 'renderer', 'index.html');
  const url = pathToFileURL(index).href;
  assert.ok(isTrustedSender({ url: `${url}#/failures`, parent: null }, index));
  assert.ok(isTrustedSender({ url: `${url}?x=1`, parent: null }, index));
  assert.equal(
    isTrustedSender(
      { url: pathToFileURL(join(INSTALLED, 'dist', 'renderer', 'other.html')).href, parent: null },
      index,
    ),
    false,
  );
  assert.equal(isTrustedSender({ url: 'http://localhost:5173/index.html', parent: null }, index), false);
  assert.equal(isTrustedSender({ url: 'about:blank', parent: null }, index), false);
  assert.equal(isTrustedSender(null, index), false);
});

test('the CSP allows no inline or remote script, no eval, no frames or plugins; the meta tag matches the header', () => {
  assert.match(CSP_HEADER, /default-src 'none'/);
  assert.match(CSP_HEADER, /script-src 'self'(;|$)/);
  assert.match(CSP_HEADER, /object-src 'none'/);
  assert.match(CSP_HEADER, /frame-ancestors 'none'/);
  assert.doesNotMatch(CSP_HEADER, /unsafe-eval|unsafe-inline|https?:|\*/);
  assert.equal(CSP_HEADER.startsWith(CSP_META), true);
  assert.doesNotMatch(CSP_META, /frame-ancestors/, 'ignored (with a console warning) in a meta tag');
});

test('renderer/index.html carries CSP_META as its meta tag, character for character', () => {
  const html = readFileSync(join(REPO, 'renderer/index.html'), 'utf8');
  const metas = [...html.matchAll(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/gi)].map(
    (m) => m[1],
  );
  assert.deepEqual(metas, [CSP_META]);
});

test('the menu offers Import, Pause/Stop/Resume farm, the views and Help, wired to the given actions', () => {
  const done: string[] = [];
  const actions: MenuActions = {
    importShotList: () => done.push('import'),
    stopFarm: () => done.push('stop'),
    pauseFarm: () => done.push('pause'),
    resumeFarm: () => done.push('resume'),
    showView: (v) => done.push(`view:${v}`),
    openDataFolder: () => done.push('data'),
    about: () => done.push('about'),
    useThisComputer: () => done.push('local'),
    joinStudioFarm: () => done.push('studio'),
  };
  const items = menuTemplate(actions, { platform: 'linux', devTools: false }).flatMap((m) => [
    m,
    ...(Array.isArray(m.submenu) ? m.submenu : []),
  ]);
  const click = (label: string) => {
    const item = items.find((i) => i.label === label);
    assert.ok(item?.click, `menu item ${label}`);
    (item.click as () => void)();
  };
  for (const label of [
    'Import Shot List…',
    'Work on This Computer',
    'Join Studio Farm…',
    'Pause Dispatch',
    'Stop Farm…',
    'Resume Farm',
    'Queue',
    'Workstations',
    'Failures',
    'Timeline',
    'Ledger',
    'Settings',
    'Show Data Folder',
    'About Shotfarm',
  ])
    click(label);
  assert.deepEqual(done, [
    'import',
    'local',
    'studio',
    'pause',
    'stop',
    'resume',
    'view:queue',
    'view:workstations',
    'view:failures',
    'view:timeline',
    'view:ledger',
    'view:settings',
    'data',
    'about',
  ]);
  assert.equal(
    items.some((i) => i.role === 'toggleDevTools'),
    false,
    'no DevTools in a packaged app',
  );
  assert.equal(
    menuTemplate(actions, { platform: 'linux', devTools: true }).some(
      (m) => Array.isArray(m.submenu) && m.submenu.some((i) => i.role === 'toggleDevTools'),
    ),
    true,
  );
});

test('the window reopens where it was, unless that place is no longer on a screen', (t) => {
  const tmp = makeTempDir('shotfarm-window-');
  t.after(tmp.cleanup);
  const file = join(tmp.path, 'window-state.json');
  const screens = [{ x: 0, y: 0, width: 2560, height: 1400 }];
  assert.deepEqual(placeWindow(loadWindowState(file), screens), { width: 1440, height: 900, maximized: false });

  saveWindowState(file, { x: 100, y: 80, width: 1600, height: 1000, maximized: true });
  assert.deepEqual(placeWindow(loadWindowState(file), screens), {
    x: 100,
    y: 80,
    width: 1600,
    height: 1000,
    maximized: true,
  });
  // The monitor it was on is gone: same size, centred by Electron (no x/y).
  saveWindowState(file, { x: 3000, y: 80, width: 1600, height: 1000, maximized: false });
  assert.deepEqual(placeWindow(loadWindowState(file), screens), { width: 1600, height: 1000, maximized: false });
  // Title bar above the screen: not reachable, so not reused.
  assert.equal(placeWindow({ x: 10, y: -500, width: 1600, height: 1000, maximized: false }, screens).y, undefined);
  // Larger than the screen now: shrunk to fit.
  assert.deepEqual(
    placeWindow({ width: 5000, height: 3000, maximized: false }, [{ x: 0, y: 0, width: 1280, height: 720 }]),
    { width: 1280, height: 720, maximized: false },
  );

  writeFileSync(file, '{ broken');
  assert.equal(loadWindowState(file), null);
  writeFileSync(file, JSON.stringify({ width: 'wide' }));
  assert.equal(loadWindowState(file), null);
  assert.equal(readFileSync(file, 'utf8').length > 0, true);
});
