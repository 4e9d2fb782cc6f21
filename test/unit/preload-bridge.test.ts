import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_INPUTS, type ApiMethod } from '../../shared/api.js';
import { LOCAL_ONLY_METHODS } from '../../shared/methods.js';
import { BRIDGE_KEY, createShotfarmBridge, exposeBridge, type IpcRendererLike } from '../../electron/preload/bridge.js';
import { WIRE_TOPICS } from '../../shared/events.js';
import {
  BRIDGE_TOPICS,
  CHANNELS,
  PAGE_METHODS,
  SHELL_TOPICS,
  type ShellEventMap,
} from '../../electron/preload/channels.js';
import type { ShotfarmBridge as PreloadBridge } from '../../electron/preload/bridge.js';
import type {
  BridgeShellEventMap,
  BridgeShellTopic,
  ShotfarmBridge as PageBridge,
} from '../../renderer/client/bridge.js';

/** An ipcRenderer that records invokes, answers from a script, and lets the test push events. */
function fakeIpc(answer: (channel: string, args: unknown[]) => unknown = () => ({ ok: true, result: null })) {
  const invoked: { channel: string; args: unknown[] }[] = [];
  const listeners = new Map<string, ((event: unknown, ...args: unknown[]) => void)[]>();
  const ipc: IpcRendererLike = {
    async invoke(channel, ...args) {
      invoked.push({ channel, args });
      return answer(channel, args);
    },
    on(channel, listener) {
      listeners.set(channel, [...(listeners.get(channel) ?? []), listener]);
      return ipc;
    },
  };
  const push = (...args: unknown[]) => {
    for (const l of listeners.get(CHANNELS.event) ?? []) l({ sender: 'the raw ipc event' }, ...args);
  };
  return { ipc, invoked, listeners, push };
}

test('the preload exposes exactly one key, shotfarm, holding only call, subscribe, the three shell capabilities and the studio-farm three', () => {
  const exposed: [string, unknown][] = [];
  const { ipc } = fakeIpc();
  exposeBridge({ exposeInMainWorld: (key, api) => exposed.push([key, api]) }, ipc);
  assert.equal(exposed.length, 1);
  const [key, api] = exposed[0] ?? [];
  assert.equal(key, BRIDGE_KEY);
  assert.equal(key, 'shotfarm');
  assert.deepEqual(Object.keys(api as object).sort(), [
    'call',
    'importedHere',
    'joinStudio',
    'openShotListDialog',
    'revealFile',
    'saveExport',
    'studioFarm',
    'subscribe',
  ]);
  for (const v of Object.values(api as object)) assert.equal(typeof v, 'function');
  assert.ok(Object.isFrozen(api), 'the page cannot swap the functions');
  assert.ok(!Object.values(api as object).includes(ipc), 'ipcRenderer is never handed over');
});

test('call rejects an unknown method name without sending anything', async () => {
  const { ipc, invoked } = fakeIpc();
  const bridge = createShotfarmBridge(ipc);
  for (const name of ['db.exec', '__proto__', 'constructor', 'hasOwnProperty', '', 'farm.status ', 42, null]) {
    await assert.rejects(bridge.call(name as string, {}), (err: unknown) => {
      assert.equal((err as { code: string }).code, 'not_found');
      assert.equal((err as { retryable: boolean }).retryable, false);
      return true;
    });
  }
  assert.deepEqual(invoked, []);
});

test('every method the page uses is forwarded on the one fixed call channel with its input; the others never leave the preload', async () => {
  const { ipc, invoked } = fakeIpc((_c, args) => ({ ok: true, result: `answer to ${String(args[0])}` }));
  const bridge = createShotfarmBridge(ipc);
  for (const method of PAGE_METHODS) {
    assert.equal(await bridge.call(method, { probe: method }), `answer to ${method}`);
  }
  assert.equal(invoked.length, PAGE_METHODS.size);
  assert.ok(invoked.every((i) => i.channel === CHANNELS.call && (i.args[1] as { probe: string }).probe === i.args[0]));
  // The local-only methods get serve's refusal; any other method the views do not use, its own.
  // (The settings with a folder's key: the Settings view may change the number settings.)
  for (const method of LOCAL_ONLY_METHODS) {
    const input = method.startsWith('settings.') ? { key: 'output_root', value: tmpdir() } : {};
    await assert.rejects(
      bridge.call(method, input),
      (err: unknown) =>
        (err as { code: string; message: string }).code === 'forbidden' &&
        /(only available from|changed on) this machine's command line/.test((err as { message: string }).message),
      method,
    );
  }
  const unused = Object.keys(API_INPUTS).filter(
    (m) => !PAGE_METHODS.has(m as ApiMethod) && !LOCAL_ONLY_METHODS.has(m as ApiMethod),
  );
  assert.ok(unused.includes('release.verify') && unused.includes('jobs.ids') && unused.includes('instances.probeAll'));
  for (const method of unused) {
    await assert.rejects(
      bridge.call(method, {}),
      (err: unknown) =>
        (err as { code: string; message: string }).code === 'forbidden' &&
        /is not available to the app's page/.test((err as { message: string }).message),
      method,
    );
  }
  assert.equal(invoked.length, PAGE_METHODS.size, 'the main process, which refuses them too, is never asked');
});

test('an error answer rejects with the envelope as a plain object', async () => {
  const error = { code: 'conflict', message: 'The job is running.', retryable: false };
  const bridge = createShotfarmBridge(fakeIpc(() => ({ ok: false, error })).ipc);
  await assert.rejects(bridge.call('jobs.hold', { ids: [] }), (err: unknown) => {
    assert.deepEqual(err, error);
    assert.ok(!(err instanceof Error));
    return true;
  });
});

test('a refused or broken IPC answer becomes an envelope, never a raw Electron error', async () => {
  const refused = createShotfarmBridge(
    fakeIpc(() => {
      throw new Error("Error invoking remote method 'shotfarm:call': This page may not use Shotfarm.");
    }).ipc,
  );
  await assert.rejects(
    refused.call('farm.status', {}),
    (err: unknown) => (err as { code: string }).code === 'unavailable',
  );
  const odd = createShotfarmBridge(fakeIpc(() => 'surprise').ipc);
  await assert.rejects(odd.call('farm.status', {}), (err: unknown) => (err as { code: string }).code === 'internal');
});

test('subscribe accepts the engine topics and the shell topics, and refuses anything else', () => {
  const bridge = createShotfarmBridge(fakeIpc().ipc);
  for (const topic of BRIDGE_TOPICS) assert.equal(typeof bridge.subscribe(topic, () => undefined), 'function');
  assert.deepEqual([...BRIDGE_TOPICS].sort(), [...WIRE_TOPICS, 'engine.restarted', 'shell.command'].sort());
  for (const topic of ['job.*', 'ipc', '__proto__', 'toString', '']) {
    assert.throws(() => bridge.subscribe(topic, () => undefined), TypeError);
  }
  assert.throws(() => bridge.subscribe('job.changed', 'not a function' as unknown as () => void), TypeError);
});

test('subscribers get the payload only (never the IPC event) and only for their topic, until they unsubscribe', () => {
  const { ipc, push, listeners } = fakeIpc();
  const bridge = createShotfarmBridge(ipc);
  const got: unknown[][] = [];
  const off = bridge.subscribe('job.changed', (...args) => got.push(args));
  bridge.subscribe('instance.removed', () => got.push(['wrong topic']));
  assert.equal(listeners.get(CHANNELS.event)?.length, 1, 'one IPC listener for all topics');
  push('job.changed', { job: { id: 'a' } });
  push('not.a.topic', { job: { id: 'b' } });
  off();
  push('job.changed', { job: { id: 'c' } });
  assert.deepEqual(got, [[{ job: { id: 'a' } }]]);
});

test('a throwing subscriber does not stop the others', () => {
  const { ipc, push } = fakeIpc();
  const bridge = createShotfarmBridge(ipc);
  let reached = false;
  bridge.subscribe('jobs.bulkChanged', () => {
    throw new Error('page bug');
  });
  bridge.subscribe('jobs.bulkChanged', () => (reached = true));
  push('jobs.bulkChanged', { count: 3 });
  assert.equal(reached, true);
});

test('openShotListDialog returns the chosen file, null when cancelled, and the envelope when reading failed', async () => {
  const file = { fileName: 'shots.csv', content: 'Shot\nsh010\n', baseDir: '/studio/ep101' };
  let next: unknown = { ok: true, result: file };
  const { ipc, invoked } = fakeIpc(() => next);
  const bridge = createShotfarmBridge(ipc);
  assert.deepEqual(await bridge.openShotListDialog(), file);
  next = { ok: true, result: null };
  assert.equal(await bridge.openShotListDialog(), null);
  next = { ok: false, error: { code: 'storage', message: 'shots.csv could not be read', retryable: false } };
  await assert.rejects(bridge.openShotListDialog(), (err: unknown) => (err as { code: string }).code === 'storage');
  next = { ok: true, result: { fileName: 'x' } };
  await assert.rejects(bridge.openShotListDialog(), (err: unknown) => (err as { code: string }).code === 'internal');
  assert.ok(invoked.every((i) => i.channel === CHANNELS.openShotList && i.args.length === 0));
});

test('revealFile sends only a string path on its fixed channel and refuses anything else locally', async () => {
  const { ipc, invoked } = fakeIpc(() => ({ ok: true }));
  const bridge = createShotfarmBridge(ipc);
  await bridge.revealFile('/renders/sh010.png');
  for (const bad of ['', 17, { path: '/x' }, 'x'.repeat(5000)]) {
    await assert.rejects(
      bridge.revealFile(bad as string),
      (err: unknown) => (err as { code: string }).code === 'bad_input',
    );
  }
  assert.deepEqual(invoked, [{ channel: CHANNELS.revealFile, args: ['/renders/sh010.png'] }]);
});

test('saveExport sends only the kind and the filters on its fixed channel; the answer is checked', async () => {
  let next: unknown = { ok: true, result: { path: join(tmpdir(), 'lead', 'r.csv'), rows: 3, bytes: 120 } };
  const { ipc, invoked } = fakeIpc(() => next);
  const bridge = createShotfarmBridge(ipc);
  assert.deepEqual(await bridge.saveExport('runlog', { project: 'Moonfall' }), {
    path: join(tmpdir(), 'lead', 'r.csv'),
    rows: 3,
    bytes: 120,
  });
  next = { ok: true, result: null };
  assert.equal(await bridge.saveExport('ledger', {}), null);
  for (const [kind, filter] of [
    ['passwd', {}],
    ['runlog', null],
    ['runlog', []],
  ] as const) {
    await assert.rejects(
      bridge.saveExport(kind, filter as never),
      (err: unknown) => (err as { code: string }).code === 'bad_input',
    );
  }
  next = { ok: true, result: { path: 5 } };
  await assert.rejects(
    bridge.saveExport('runlog', {}),
    (err: unknown) => (err as { code: string }).code === 'internal',
  );
  assert.equal(invoked.length, 3);
  assert.ok(invoked.every((i) => i.channel === CHANNELS.saveExport && i.args.length === 2));
});

test('the page cannot reach other channels: every invoke uses one of the fixed request channels', async () => {
  const { ipc, invoked } = fakeIpc((c) =>
    c === CHANNELS.openShotList ? { ok: true, result: null } : { ok: true, result: null },
  );
  const bridge = createShotfarmBridge(ipc);
  await bridge.call('farm.status', {});
  await bridge.openShotListDialog();
  await bridge.revealFile('/x');
  await bridge.saveExport('runlog', {});
  await bridge.studioFarm().catch(() => undefined);
  await bridge.joinStudio('http://farm:8080', 'tok').catch(() => undefined);
  await bridge.importedHere(['a']);
  assert.deepEqual(
    new Set(invoked.map((i) => i.channel)),
    new Set([
      CHANNELS.call,
      CHANNELS.openShotList,
      CHANNELS.revealFile,
      CHANNELS.saveExport,
      CHANNELS.studio,
      CHANNELS.joinStudio,
      CHANNELS.importedHere,
    ]),
  );
});

// The renderer may not import the preload (import zones), so renderer/client/bridge.d.ts mirrors it.
// These fail to compile (tsc -p tsconfig.json) when the two descriptions of `window.shotfarm` drift.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const bridgesMatch: Same<PreloadBridge, PageBridge> = true;
const shellEventsMatch: Same<ShellEventMap, BridgeShellEventMap> = true;
const shellTopicsMatch: Same<(typeof SHELL_TOPICS)[number], BridgeShellTopic> = true;

test('studioFarm passes the farm and the join request on, and refuses an answer of another shape', async () => {
  const farm = { origin: 'http://farm:8080', token: 'tok' };
  const ok = createShotfarmBridge(fakeIpc(() => ({ ok: true, result: { farm, askJoin: true } })).ipc);
  assert.deepEqual(await ok.studioFarm(), { farm, askJoin: true });
  const local = createShotfarmBridge(fakeIpc(() => ({ ok: true, result: { farm: null, askJoin: false } })).ipc);
  assert.deepEqual(await local.studioFarm(), { farm: null, askJoin: false });
  const odd = createShotfarmBridge(fakeIpc(() => ({ ok: true, result: { farm: { origin: 1 }, askJoin: false } })).ipc);
  await assert.rejects(odd.studioFarm(), (e: { code?: string }) => e.code === 'internal');
});

test("the page's description of window.shotfarm matches the preload's (types, shell topics, views)", () => {
  assert.ok(bridgesMatch && shellEventsMatch && shellTopicsMatch);
  const { ipc } = fakeIpc();
  const page: PageBridge = createShotfarmBridge(ipc);
  for (const topic of SHELL_TOPICS) assert.equal(typeof page.subscribe(topic, () => undefined), 'function');
});

test('the Settings view may change the number settings and project_weights from the desktop page; the folder settings stay on the command line', async () => {
  const { ipc, invoked } = fakeIpc(() => ({ ok: true, result: 'set' }));
  const bridge = createShotfarmBridge(ipc);
  for (const input of [
    { key: 'retry_attempts', value: 5 },
    { key: 'fair_share', value: 0 },
    { key: 'project_weights', value: 'Moonfall=3, Ashen=1' },
  ]) {
    assert.equal(await bridge.call('settings.set', input), 'set', input.key);
  }
  assert.equal(await bridge.call('settings.reset', { key: 'project_weights' }), 'set');
  for (const input of [
    { key: 'output_root', value: tmpdir() },
    { key: 'releases_root', value: tmpdir() },
  ]) {
    await assert.rejects(
      bridge.call('settings.set', input),
      (err: unknown) => (err as { code: string }).code === 'forbidden',
      input.key,
    );
  }
  await assert.rejects(
    bridge.call('settings.reset', { key: 'releases_root' }),
    (err: unknown) => (err as { code: string }).code === 'forbidden',
  );
  assert.deepEqual(
    invoked.map((i) => (i.args[1] as { key: string }).key),
    ['retry_attempts', 'fair_share', 'project_weights', 'project_weights'],
  );
});
