/**
 * The engine process entry and the host, across a real process boundary. In the app the child is an
 * Electron utilityProcess; here the very same entry runs as a Node child with an IPC channel (the
 * entry uses whichever parent port it has), with a real engine on a temp SQLite file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ShotfarmError } from '../../shared/errors.js';
import type { EventMap, EventTopic } from '../../shared/events.js';
import { systemTimers, type Timers } from '../../electron/engine/clock.js';
import { EngineHost, type EngineChild } from '../../electron/main/engine-host.js';
import { REPO } from '../helpers/engine.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { nextValue } from '../helpers/wait.js';

const ENTRY = new URL('../../electron/main/engine-process.ts', import.meta.url).pathname;

function nodeSpawner(dataDir: string, extraArgs: string[] = []) {
  const processes: ChildProcess[] = [];
  const stderr: string[] = [];
  const spawn = (): EngineChild => {
    const cp = fork(ENTRY, ['--data', dataDir, ...extraArgs], {
      execArgv: ['--import', 'tsx'],
      serialization: 'advanced', // structured clone, like a utility process's port
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { ...process.env, SHOTFARM_DATA: '' },
    });
    cp.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    cp.on('error', () => undefined); // a send on a closing channel; the exit event follows
    processes.push(cp);
    return {
      postMessage: (m) => void cp.send(m),
      kill: () => cp.kill(),
      on: (event: 'message' | 'exit', listener: (arg: never) => void) =>
        event === 'message'
          ? cp.on('message', listener as (m: unknown) => void)
          : cp.on('exit', (code) => (listener as (c: number | null) => void)(code)),
    };
  };
  return { spawn, processes, stderr };
}

/** Real timers that know how many of theirs are still waiting. */
function trackedTimers(): Timers & { waiting: () => number } {
  const live = new Set<unknown>();
  return {
    setTimeout: (fn, ms) => {
      const handle = systemTimers.setTimeout(() => {
        live.delete(handle);
        fn();
      }, ms);
      live.add(handle);
      return handle;
    },
    clearTimeout: (handle) => {
      live.delete(handle);
      systemTimers.clearTimeout(handle);
    },
    waiting: () => live.size,
  };
}

/** Resolves when the process has exited (at once if it already has). */
function exitOf(cp: ChildProcess | undefined): Promise<void> {
  if (!cp || cp.exitCode !== null || cp.signalCode !== null) return Promise.resolve();
  return nextValue<void>((deliver) => cp.once('exit', () => deliver()), { what: 'the engine process to exit' });
}

test('the engine process answers contract calls, relays events, survives a kill, and shuts down cleanly', {
  timeout: 90_000,
}, async (t) => {
  const tmp = makeTempDir('shotfarm-engine-proc-');
  const sp = nodeSpawner(tmp.path);
  const host = new EngineHost({ spawn: sp.spawn, backoff: { initialMs: 50, maxMs: 200 }, readyTimeoutMs: 30_000 });
  t.after(async () => {
    await host.stop();
    for (const p of sp.processes) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    tmp.cleanup();
  });
  host.start();

  const status = (await host.call('farm.status', {})) as { dispatching: boolean; instances: unknown[] };
  assert.equal(status.dispatching, true, 'the scheduler runs in the engine process');
  assert.deepEqual(status.instances, []);

  const changed = nextValue<[EventTopic, EventMap[EventTopic]]>(
    (resolve) =>
      host.on('event', (topic, payload) => {
        if (topic === 'instance.changed') resolve([topic, payload]);
      }),
    { what: 'instance.changed' },
  );
  const added = (await host.call('instances.add', { name: 'gpu-01', url: 'http://127.0.0.1:9' })) as {
    id: string;
    name: string;
  };
  const [, payload] = await changed;
  assert.equal((payload as EventMap['instance.changed']).instance.id, added.id);

  await assert.rejects(host.call('instances.add', { name: 'gpu-01', url: 'not a url' }), (err: unknown) => {
    assert.ok(err instanceof ShotfarmError);
    assert.equal(err.code, 'bad_input');
    return true;
  });

  const restarted = nextValue<{ restarts: number; reason: string }>((resolve) => host.on('restarted', resolve), {
    what: 'the restart',
    timeoutMs: 30_000,
  });
  const first = sp.processes[0];
  assert.ok(first?.pid);
  first.kill('SIGKILL');
  const notice = await restarted;
  assert.equal(notice.restarts, 1);
  assert.equal(sp.processes.length, 2);

  const instances = (await host.call('instances.list', {})) as { name: string }[];
  assert.deepEqual(
    instances.map((i) => i.name),
    ['gpu-01'],
    'what was stored before the crash is still there',
  );

  const second = sp.processes[1];
  const exited = nextValue<number | null>((resolve) => second?.once('exit', (code) => resolve(code)), {
    what: 'the engine exit',
  });
  await host.stop();
  assert.equal(await exited, 0, 'the engine closed its database and exited cleanly');
  assert.equal(host.status, 'stopped');
});

test('an engine that cannot open its data folder reports why, once, and is not restarted', {
  timeout: 60_000,
}, async (t) => {
  const tmp = makeTempDir('shotfarm-engine-fatal-');
  t.after(tmp.cleanup);
  const notAFolder = join(tmp.path, 'file');
  writeFileSync(notAFolder, 'this is a file, not a folder');
  const sp = nodeSpawner(notAFolder);
  const timers = trackedTimers();
  const host = new EngineHost({ spawn: sp.spawn, timers, backoff: { initialMs: 50, maxMs: 50 } });
  const failed = nextValue<{ code: string; message: string; retryable: boolean }>(
    (resolve) => host.on('failed', resolve),
    { what: 'the failure', timeoutMs: 30_000 },
  );
  host.start();
  const call = host.call('farm.status', {});
  const error = await failed;
  assert.equal(error.code, 'storage');
  assert.equal(error.retryable, false);
  await assert.rejects(call, (err: unknown) => err instanceof ShotfarmError && err.code === 'storage');
  await exitOf(sp.processes[0]);
  // The engine is gone and the host has no timer left that could start another one.
  assert.equal(timers.waiting(), 0, 'no restart scheduled on a deterministic failure');
  assert.equal(sp.processes.length, 1, 'no restart loop on a deterministic failure');
  assert.equal(host.status, 'failed');
});

test('the engine process opens SQLite with the addon --native-binding names, and a bad one stops it with a storage error', {
  timeout: 60_000,
}, async (t) => {
  const tmp = makeTempDir('shotfarm-engine-addon-');
  t.after(tmp.cleanup);
  // The app passes its Electron build; a Node child can only load the Node build.
  const nodeBuild = join(REPO, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');
  const good = new EngineHost({
    spawn: nodeSpawner(tmp.path, ['--native-binding', nodeBuild]).spawn,
    readyTimeoutMs: 30_000,
  });
  good.start();
  assert.deepEqual(await good.call('instances.list', {}), []);
  await good.stop();

  const missing = join(tmp.path, 'native/electron-0.0.0-test/better_sqlite3.node');
  const sp = nodeSpawner(tmp.path, ['--native-binding', missing]);
  const bad = new EngineHost({ spawn: sp.spawn, backoff: { initialMs: 50, maxMs: 50 } });
  const failed = nextValue<{ code: string; message: string; details?: Record<string, unknown> }>(
    (resolve) => bad.on('failed', resolve),
    { what: 'the failure', timeoutMs: 30_000 },
  );
  bad.start();
  const error = await failed;
  assert.equal(error.code, 'storage');
  assert.ok(error.message.includes(missing), error.message);
  assert.deepEqual(
    error.details,
    { nativeBinding: missing },
    'what the main process keys its "npm run native:electron" hint on',
  );
  assert.equal(sp.processes.length, 1, 'not restarted: a missing addon stays missing');
});
