/**
 * The desktop transport (renderer/client/ipc-transport.ts) against a fake `window.shotfarm`: the
 * shell capability (file dialog, show in folder, menu commands, engine restarts) with payloads
 * checked, thumbnail URLs on the asset scheme, and the store's reaction to an engine restart
 * (a notice, and everything refetched as after a reconnect).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ShotfarmBridge } from '../../renderer/client/bridge.js';
import { ApiError, type ShellCommand } from '../../renderer/client/client.js';
import { createIpcClient, ipcAssetUrl } from '../../renderer/client/ipc-transport.js';
import { connectStore, createAppStore, engineRestartNotice } from '../../renderer/store/app-store.js';
import { waitUntil } from '../helpers/wait.js';

function fakeBridge(over: Partial<ShotfarmBridge> = {}) {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const calls: { method: string; input: unknown }[] = [];
  const bridge: ShotfarmBridge = {
    async call(method, input) {
      calls.push({ method, input });
      if (method === 'farm.status')
        return { jobsByState: {}, instances: [], healthyInstances: null, dispatching: true, activeAttempts: 0 };
      if (method === 'jobs.list') return { rows: [], total: 0 };
      return null;
    },
    subscribe(topic, fn) {
      let set = listeners.get(topic);
      if (!set) listeners.set(topic, (set = new Set()));
      set.add(fn);
      return () => void set.delete(fn);
    },
    openShotListDialog: async () => null,
    revealFile: async () => undefined,
    saveExport: async () => null,
    studioFarm: async () => ({ farm: null, askJoin: false }),
    joinStudio: async () => undefined,
    importedHere: async () => undefined,
    ...over,
  };
  const push = (topic: string, payload: unknown) => {
    for (const fn of listeners.get(topic) ?? []) fn(payload);
  };
  return { bridge, push, calls, listeners };
}

test('thumbnails load from shotfarm-asset://<id>; ids that are not ids get no URL', () => {
  const { bridge } = fakeBridge();
  const client = createIpcClient(bridge);
  const id = '3b241101-e2bb-4255-8caf-4136c566a962';
  assert.equal(client.assetUrl(id), `shotfarm-asset://${id}`);
  for (const bad of ['', '../etc/passwd', 'a/b', 'x?y', 'a'.repeat(101), 'é'])
    assert.equal(ipcAssetUrl(bad), null, bad);
});

test('the desktop client has the shell capability: the dialog answer with its folder, cancel as null, errors as ApiError', async () => {
  const file = { fileName: 'ep101.csv', content: 'Shot,Stage\nsh010,keyframe\n', baseDir: '/projects/moonfall' };
  const shell = createIpcClient(fakeBridge({ openShotListDialog: async () => file }).bridge).shell;
  assert.ok(shell);
  assert.deepEqual(await shell.openShotList(), file);
  assert.equal(await createIpcClient(fakeBridge().bridge).shell?.openShotList(), null);

  const envelope = { code: 'storage', message: 'ep101.csv could not be read: EACCES', retryable: false };
  const failing = createIpcClient(
    fakeBridge({ openShotListDialog: () => Promise.reject(envelope), revealFile: () => Promise.reject(envelope) })
      .bridge,
  ).shell;
  await assert.rejects(
    failing!.openShotList(),
    (e: unknown) => e instanceof ApiError && e.envelope.message === envelope.message,
  );
  await assert.rejects(
    failing!.revealFile('/x.png'),
    (e: unknown) => e instanceof ApiError && e.envelope.code === 'storage',
  );
  const odd = createIpcClient(fakeBridge({ openShotListDialog: async () => ({ fileName: 3 }) as never }).bridge).shell;
  await assert.rejects(odd!.openShotList(), (e: unknown) => e instanceof ApiError && e.envelope.code === 'internal');

  const revealed: string[] = [];
  await createIpcClient(fakeBridge({ revealFile: async (p) => void revealed.push(p) }).bridge).shell?.revealFile(
    '/out/sh010.png',
  );
  assert.deepEqual(revealed, ['/out/sh010.png']);
});

test('menu commands and restarts reach the page checked: malformed payloads are dropped', () => {
  const { bridge, push, listeners } = fakeBridge();
  const shell = createIpcClient(bridge).shell!;
  const commands: ShellCommand[] = [];
  const restarts: unknown[] = [];
  const offCommand = shell.onCommand((c) => commands.push(c));
  shell.onEngineRestarted((n) => restarts.push(n));

  push('shell.command', { command: 'import' });
  push('shell.command', { command: 'show-view', view: 'ledger' });
  push('shell.command', { command: 'show-view', view: 'settings' });
  // Not a view: hooks stay on the farm machine's command line.
  push('shell.command', { command: 'show-view', view: 'hooks' });
  push('shell.command', { command: 'rm -rf' });
  push('shell.command', null);
  push('engine.restarted', { restarts: 2, reason: 'it exited with code 1' });
  push('engine.restarted', { restarts: 'many' });
  assert.deepEqual(commands, [
    { command: 'import' },
    { command: 'show-view', view: 'ledger' },
    { command: 'show-view', view: 'settings' },
  ]);
  assert.deepEqual(restarts, [{ restarts: 2, reason: 'it exited with code 1' }]);

  offCommand();
  push('shell.command', { command: 'import' });
  assert.equal(commands.length, 3);
  assert.equal(listeners.get('shell.command')?.size, 0);
});

test('an engine restart shows a notice and refetches everything, as a reconnect does', async () => {
  const { bridge, push, calls } = fakeBridge();
  const client = createIpcClient(bridge);
  const store = createAppStore(client);
  const stop = connectStore(store, client);
  // Each refetch ends by bumping liveTick in the store: wait on the store, not on time.
  const wake = (recheck: () => void) => store.subscribe(recheck);
  try {
    await waitUntil(() => store.getState().liveTick > 0, { what: 'the first fetch (online at once)', wake });
    const before = calls.filter((c) => c.method === 'farm.status').length;
    assert.ok(before >= 1, 'the first fetch (online at once)');
    const tick = store.getState().liveTick;

    push('engine.restarted', { restarts: 3, reason: 'it exited with code 134' });
    await waitUntil(() => store.getState().liveTick > tick, { what: 'the refetch after the restart', wake });
    const toast = store.getState().toasts.at(-1);
    assert.equal(toast?.text, 'The engine restarted (3); the farm reconnected its running attempts.');
    assert.equal(toast?.text, engineRestartNotice(3));
    assert.equal(calls.filter((c) => c.method === 'farm.status').length, before + 1, 'status refetched');
    assert.ok(store.getState().liveTick > tick, 'query-built views are told to refetch');
  } finally {
    stop();
    for (const t of store.getState().toasts) store.getState().dismiss(t.id);
  }
});

test('the store connects to a client without the shell capability (the headless one) as before', () => {
  // ws-transport needs a window; a client of the same interface minus `shell` stands in for it.
  const { bridge } = fakeBridge();
  const desktop = createIpcClient(bridge);
  const { shell: _shell, ...headlessShaped } = desktop;
  const store = createAppStore(headlessShaped);
  const stop = connectStore(store, headlessShaped);
  stop();
  assert.equal(store.getState().client.shell, undefined);
});

test('a toast closed before its time, or pushed out by newer ones, leaves no timer running', () => {
  const store = createAppStore(createIpcClient(fakeBridge().bridge));
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const before = timers();
  const { notify, dismiss } = store.getState();
  notify('info', 'one');
  assert.equal(timers(), before + 1, 'a toast goes away by itself: it has a timer');
  dismiss(store.getState().toasts[0]!.id);
  assert.equal(timers(), before, 'closed by hand: its timer is gone');
  for (const n of [1, 2, 3, 4, 5, 6]) notify('error', `error ${n}`);
  assert.deepEqual(
    store.getState().toasts.map((t) => t.text),
    ['error 3', 'error 4', 'error 5', 'error 6'],
  );
  assert.equal(timers(), before + 4, 'the two pushed out took their timers with them');
  for (const t of store.getState().toasts) dismiss(t.id);
  assert.equal(timers(), before);
});
