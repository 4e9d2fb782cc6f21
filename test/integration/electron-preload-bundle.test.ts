/**
 * The preload that actually runs is the bundle (dist/electron/preload/preload.cjs). A sandboxed
 * preload can require only `electron` and a few built-ins and cannot load ES modules, so build the
 * bundle with the repo's config and run it the way the sandbox would: a CommonJS wrapper in a fresh
 * context whose `require` knows nothing but those modules.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import { build, type InlineConfig } from 'vite';
import preloadConfig from '../../electron/preload/vite.config.js';
import { CHANNELS } from '../../electron/preload/channels.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** What Electron's sandboxed preload `require` offers (Electron docs, "Process Sandboxing"). */
const SANDBOX_MODULES = new Set(['electron', 'events', 'timers', 'url']);

async function buildPreload(outDir: string): Promise<string> {
  const config = preloadConfig as InlineConfig;
  await build({ ...config, configFile: false, logLevel: 'silent', build: { ...config.build, outDir } });
  return readFileSync(join(outDir, 'preload.cjs'), 'utf8');
}

function runSandboxed(code: string, electron: unknown): string[] {
  const required: string[] = [];
  const sandboxRequire = (name: string): unknown => {
    required.push(name);
    if (!SANDBOX_MODULES.has(name))
      throw new Error(`Cannot find module '${name}' (not available in a sandboxed preload)`);
    if (name === 'electron') return electron;
    throw new Error(`the test provides only electron, not ${name}`);
  };
  // A fresh realm without Node's globals (no process, no Buffer, no require of its own).
  const context = vm.createContext({ console });
  const wrapper = vm.runInContext(`(function (exports, require, module, __filename, __dirname) {${code}\n})`, context, {
    filename: 'preload.cjs',
  }) as (...args: unknown[]) => void;
  const module = { exports: {} };
  wrapper(module.exports, sandboxRequire, module, '/app/preload.cjs', '/app');
  return required;
}

test('the built preload runs in a sandbox-like realm needing only electron, and exposes only window.shotfarm', async (t) => {
  const tmp = makeTempDir('shotfarm-preload-');
  t.after(tmp.cleanup);
  const code = await buildPreload(tmp.path);
  assert.doesNotMatch(code, /^\s*(import|export)\s/m, 'no ES module syntax: a sandboxed preload is plain script');

  const exposed: [string, Record<string, unknown>][] = [];
  const invoked: unknown[][] = [];
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, api: Record<string, unknown>) => exposed.push([key, api]) },
    ipcRenderer: {
      invoke: async (...args: unknown[]) => {
        invoked.push(args);
        return { ok: true, result: 'ok' };
      },
      on: () => undefined,
    },
  };
  const required = runSandboxed(code, electron);

  assert.deepEqual([...new Set(required)], ['electron']);
  assert.equal(exposed.length, 1);
  const [key, api] = exposed[0] ?? ['', {}];
  assert.equal(key, 'shotfarm');
  assert.deepEqual(Object.keys(api).sort(), [
    'call',
    'importedHere',
    'joinStudio',
    'openShotListDialog',
    'revealFile',
    'saveExport',
    'studioFarm',
    'subscribe',
  ]);

  const call = api.call as (m: string, i: unknown) => Promise<unknown>;
  assert.equal(await call('farm.status', {}), 'ok');
  await assert.rejects(call('shell.exec', {}), (err: unknown) => (err as { code: string }).code === 'not_found');
  assert.deepEqual(invoked, [[CHANNELS.call, 'farm.status', {}]]);
});
