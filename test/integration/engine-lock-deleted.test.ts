/**
 * Issue 29 item 5: deleting `engine.lock` (or replacing it) while an engine ran let a second engine
 * lock a new file and start — both dispatched. The farm's claim now lives in the database too
 * (lock/farm-claim.ts): a second engine, whatever became of the lock file, reads it and refuses
 * while the holder lives. Real processes: `serve` holds the farm, `run` tries.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ShotfarmError } from '../../shared/errors.js';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { hostname } from 'node:os';
import { Engine } from '../../electron/engine/engine.js';
import { fileIdentity } from '../../electron/engine/lock/farm-claim.js';
import { waitUntil } from '../helpers/wait.js';
import { startFarmProcess } from '../helpers/farm-process.js';
import { tempDirFor } from '../helpers/temp-dir.js';

test('engine.lock deleted while serve runs: a second engine (shotfarm run) is still refused, naming serve, exit 10', {
  timeout: 120_000,
}, async (ctx) => {
  const dir = tempDirFor(ctx);
  const serve = startFarmProcess('serve', dir);
  ctx.after(() => serve.stop('SIGKILL'));
  await serve.ready;
  rmSync(join(dir, 'engine.lock'));
  rmSync(join(dir, 'engine.lock.json'), { force: true });
  const run = startFarmProcess('run', dir);
  ctx.after(() => run.stop('SIGKILL'));
  assert.equal(await run.exited, EXIT.farmHeld, run.output());
  assert.match(run.output(), new RegExp(`already run by \`shotfarm serve\` \\(pid ${serve.child.pid} on `));
  // Replaced by another (empty) file of the same name, which a second engine can lock: still refused.
  rmSync(join(dir, 'engine.lock'));
  writeFileSync(join(dir, 'engine.lock'), '');
  const again = startFarmProcess('run', dir);
  ctx.after(() => again.stop('SIGKILL'));
  assert.equal(await again.exited, EXIT.farmHeld, again.output());
  assert.equal(serve.child.exitCode, null, 'the holder keeps running');
});

test('the claim of a killed engine does not hold the farm: the next engine takes it at once', {
  timeout: 120_000,
}, async (ctx) => {
  const dir = tempDirFor(ctx);
  const serve = startFarmProcess('serve', dir);
  ctx.after(() => serve.stop('SIGKILL'));
  await serve.ready;
  await serve.stop('SIGKILL');
  const next = new Engine({ dataDir: dir, kind: 'serve', log: () => undefined });
  ctx.after(() => next.close());
  assert.equal(next.holder?.pid, process.pid);
});

test('in one process: a second engine after the lock file was deleted is refused; after the first closes it starts', async (ctx) => {
  const dir = tempDirFor(ctx);
  const first = new Engine({ dataDir: dir, kind: 'serve', log: () => undefined });
  ctx.after(() => first.close());
  rmSync(join(dir, 'engine.lock'));
  assert.throws(
    () => new Engine({ dataDir: dir, kind: 'run', log: () => undefined }),
    (err: unknown) => {
      assert.ok(err instanceof ShotfarmError && err.code === 'conflict', String(err));
      assert.ok(err.details && 'engineLock' in err.details);
      return true;
    },
  );
  await first.close();
  const second = new Engine({ dataDir: dir, kind: 'run', log: () => undefined });
  await second.close();
});

test("a copy of a running farm's store (export-db) runs as a farm of its own: the claim it carries is about the original file", async (ctx) => {
  const a = tempDirFor(ctx);
  const b = tempDirFor(ctx);
  const first = new Engine({ dataDir: a, kind: 'serve', log: () => undefined });
  ctx.after(() => first.close());
  await first.call('db.export', { path: join(b, 'shotfarm.sqlite') });
  const copy = new Engine({ dataDir: b, kind: 'run', log: () => undefined });
  assert.equal(copy.holder?.kind, 'run');
  await copy.close();
});

test('a running engine whose claim a live engine took stops dispatching at its next refresh', {
  timeout: 60_000,
}, async (ctx) => {
  const dir = tempDirFor(ctx);
  const lines: string[] = [];
  const engine = new Engine({ dataDir: dir, kind: 'serve', log: (m) => lines.push(m) });
  ctx.after(() => engine.close());
  engine.startScheduler();
  // Another engine's claim, as one that took the farm while this one was suspended would write it: a
  // live pid on this host (this test's own), another lock file, refreshed now.
  const claim = {
    pid: process.pid,
    host: hostname(),
    kind: 'run',
    since: Date.now(),
    token: 'b'.repeat(32),
    dbFile: fileIdentity(engine.dbFile),
    lockFile: '0:0',
    beat: Date.now(),
  };
  engine.db.run("UPDATE settings SET value_json = ? WHERE key = 'engine.claim'", JSON.stringify(claim));
  await waitUntil(() => engine.scheduler === null, {
    what: 'the engine to stop dispatching',
    timeoutMs: 30_000,
    detail: () => lines.join('\n'),
  });
  assert.ok(
    lines.some((l) => /another engine has taken this data folder's farm .* this one stops dispatching/.test(l)),
    lines.join('\n'),
  );
});
