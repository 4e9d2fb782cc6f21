/**
 * The store loads the better-sqlite3 addon it is given (the desktop app passes its Electron build
 * this way), and a missing or unloadable addon is a storage error naming the file, not a crash.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../../electron/engine/clock.js';
import { Engine } from '../../electron/engine/engine.js';
import { openDatabase } from '../../electron/engine/store/database.js';
import { ShotfarmError } from '../../shared/errors.js';
import { REPO } from '../helpers/engine.js';
import { makeTempDir } from '../helpers/temp-dir.js';

// The Node build, as the tests' runtime can load it; the app passes native/electron-…/ instead.
const NODE_BUILD = join(REPO, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');

function assertAddonError(err: unknown, file: string, reason: RegExp): true {
  assert.ok(err instanceof ShotfarmError, String(err));
  assert.equal(err.code, 'storage');
  assert.equal(err.retryable, false);
  assert.ok(err.message.includes(file), err.message);
  assert.match(err.message, reason);
  assert.doesNotMatch(err.message, /\n|Require stack/, 'one line, no loader dump');
  assert.deepEqual(err.details, { nativeBinding: file });
  return true;
}

test('openDatabase opens the store with the better-sqlite3 addon it is given', (t) => {
  const tmp = makeTempDir('shotfarm-addon-');
  t.after(tmp.cleanup);
  const db = openDatabase(join(tmp.path, 'x.sqlite'), new ManualClock(), { nativeBinding: NODE_BUILD });
  assert.equal(db.sqlite?.pragma('journal_mode', { simple: true }), 'wal');
  assert.ok(db.one("SELECT 1 FROM sqlite_master WHERE name = 'jobs'"), 'migrated');
  db.close();
});

test('the engine hands its nativeBinding option to the store', async (t) => {
  const tmp = makeTempDir('shotfarm-addon-engine-');
  t.after(tmp.cleanup);
  const engine = new Engine({ dataDir: tmp.path, nativeBinding: NODE_BUILD, log: () => undefined });
  assert.deepEqual(await engine.call('instances.list', {}), []);
  await engine.close();
  const missing = join(tmp.path, 'nowhere/better_sqlite3.node');
  assert.throws(
    () => new Engine({ dataDir: tmp.path, nativeBinding: missing }),
    (err) => assertAddonError(err, missing, /does not exist/),
  );
});

test('a missing addon, or a file that is no addon, is a storage error naming the file', (t) => {
  const tmp = makeTempDir('shotfarm-addon-bad-');
  t.after(tmp.cleanup);
  const dbFile = join(tmp.path, 'x.sqlite');
  const missing = join(tmp.path, 'missing.node');
  assert.throws(
    () => openDatabase(dbFile, new ManualClock(), { nativeBinding: missing }),
    (err) => assertAddonError(err, missing, /does not exist/),
  );
  const bogus = join(tmp.path, 'bogus.node');
  writeFileSync(bogus, 'this is not a shared library');
  assert.throws(
    () => openDatabase(dbFile, new ManualClock(), { nativeBinding: bogus }),
    (err) => assertAddonError(err, bogus, /cannot be loaded: \S/),
  );
});
