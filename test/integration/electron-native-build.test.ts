/**
 * `npm run native:electron` (bin/native-electron.mjs) against stand-in checkouts: the Electron build
 * of better-sqlite3 is made in a temporary copy and lands only in native/electron-<version>-
 * <platform>-<arch>/, where the app looks for it; node_modules' Node build is never touched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteBindingPath } from '../../electron/main/paths.js';
import { nativeBindingFile } from '../../bin/desktop/native-binding.mjs';
import { REPO } from '../helpers/engine.js';
import {
  assertNoStackTrace,
  ELECTRON_BUILD,
  ELECTRON_VERSION,
  fakeCheckout,
  NODE_BUILD,
  runScript,
} from '../helpers/fake-checkout.js';

const ownFolder = `native/electron-${ELECTRON_VERSION}-${process.platform}-${process.arch}/`;

test('native:electron builds in a temporary copy and writes only its own folder, never node_modules/better-sqlite3/build', (t) => {
  const c = fakeCheckout({ electronBinary: false, prebuild: 'builds' });
  t.after(c.cleanup);
  const before = c.files();
  const r = runScript('native-electron.mjs', c.root);
  assert.equal(r.status, 0, r.stderr);
  const after = c.files();
  for (const [file, content] of before) assert.equal(after.get(file), content, `${file} is unchanged`);
  const added = [...after.keys()].filter((f) => !before.has(f));
  assert.deepEqual(added, [`${ownFolder}better_sqlite3.node`]);
  assert.equal(after.get(`${ownFolder}better_sqlite3.node`), ELECTRON_BUILD);
  assert.equal(after.get('node_modules/better-sqlite3/build/Release/better_sqlite3.node'), NODE_BUILD);

  const [call] = c.calls();
  assert.ok(call);
  assert.ok(
    call.cwd.startsWith(tmpdir()) && !call.cwd.startsWith(c.root),
    `built in a temporary copy, not in ${call.cwd}`,
  );
  assert.equal(existsSync(call.cwd), false, 'the temporary copy is removed');
  assert.deepEqual(call.argv.slice(0, 4), ['--runtime', 'electron', '--target', ELECTRON_VERSION]);
});

test("when no prebuilt binary can be fetched, native:electron compiles with node-gyp against Electron's headers", (t) => {
  const c = fakeCheckout({ electronBinary: false, prebuild: 'fails', nodeGyp: 'builds' });
  t.after(c.cleanup);
  const r = runScript('native-electron.mjs', c.root);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(c.files().get(`${ownFolder}better_sqlite3.node`), ELECTRON_BUILD);
  const gyp = c.calls().find((call) => call.tool === 'node-gyp');
  assert.ok(gyp?.argv.includes(`--target=${ELECTRON_VERSION}`));
  assert.ok(gyp?.argv.includes('--dist-url=https://electronjs.org/headers'));
});

test('a failed native:electron build explains itself in a paragraph and leaves no binary behind', (t) => {
  const c = fakeCheckout({ electronBinary: false, prebuild: 'fails', nodeGyp: 'absent' });
  t.after(c.cleanup);
  const r = runScript('native-electron.mjs', c.root);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /getaddrinfo ENOTFOUND github\.com/);
  assert.match(r.stderr, /node-gyp.* is not installed/);
  assertNoStackTrace(r.stderr);
  assert.equal(c.files().has(`${ownFolder}better_sqlite3.node`), false);
});

test("a new build replaces an older Electron version's build for the same platform, so a package ships one", (t) => {
  const c = fakeCheckout({ electronBinary: false, prebuild: 'builds' });
  t.after(c.cleanup);
  const older = join(c.root, `native/electron-44.0.0-${process.platform}-${process.arch}`);
  const otherOs = join(c.root, 'native/electron-44.0.0-someos-x64');
  for (const dir of [older, otherOs]) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'better_sqlite3.node'), 'old');
  }
  assert.equal(runScript('native-electron.mjs', c.root).status, 0);
  assert.equal(existsSync(older), false);
  assert.equal(existsSync(otherOs), true);
});

test("the Electron build is where the app's main process looks for it, outside node_modules", () => {
  const built = nativeBindingFile(REPO, '45.3.4', 'linux', 'x64');
  assert.equal(built, sqliteBindingPath(REPO, '45.3.4', 'linux', 'x64'));
  assert.equal(built, join(REPO, 'native/electron-45.3.4-linux-x64/better_sqlite3.node'));
});

test("native:electron --which names the file each runtime loads, and flags a Node build where Electron's should be", (t) => {
  const c = fakeCheckout({ electronBinary: true });
  t.after(c.cleanup);
  const realNodeBuild = join(REPO, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');
  copyFileSync(realNodeBuild, join(c.root, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'));
  const r = runScript('native-electron.mjs', c.root, ['--which']);
  assert.equal(r.status, 0, r.stderr);
  const [node, electron] = r.stdout.trim().split('\n');
  assert.match(
    node ?? '',
    new RegExp(
      `^Node ${process.versions.node} \\(NODE_MODULE_VERSION ${process.versions.modules}\\) loads node_modules/better-sqlite3/build/Release/better_sqlite3\\.node: ok$`,
    ),
  );
  assert.match(
    electron ?? '',
    new RegExp(
      `^Electron ${ELECTRON_VERSION} \\(NODE_MODULE_VERSION 150\\) loads ${ownFolder}better_sqlite3\\.node: missing`,
    ),
  );

  mkdirSync(join(c.root, ownFolder), { recursive: true });
  copyFileSync(realNodeBuild, join(c.root, ownFolder, 'better_sqlite3.node'));
  const wrong = runScript('native-electron.mjs', c.root, ['--which']);
  assert.match(wrong.stdout, /NOT USABLE \(this Node loads it, so it is a Node build/);
});
