/**
 * `npm start`'s first step (bin/desktop-start.mjs), run against stand-in checkouts: it checks
 * Electron's binary before anything is built, explains in one paragraph what is missing and how to
 * fix it, and builds better-sqlite3 for Electron only into native/ — never a stack trace.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../helpers/engine.js';
import {
  assertNoStackTrace,
  ELECTRON_BUILD,
  ELECTRON_VERSION,
  fakeCheckout,
  runScript,
} from '../helpers/fake-checkout.js';

const nativeFile = `native/electron-${ELECTRON_VERSION}-${process.platform}-${process.arch}/better_sqlite3.node`;

/** One paragraph: no blank line inside what the script printed on stderr. */
function assertOneParagraph(stderr: string): void {
  assert.equal(stderr.trim().split(/\n\s*\n/).length, 1, stderr);
}

test("without Electron's binary, and its download failing, npm start stops at once with one paragraph and builds nothing", (t) => {
  const c = fakeCheckout({ electronBinary: false, installer: 'fails', prebuild: 'builds', nodeGyp: 'builds' });
  t.after(c.cleanup);
  const before = c.files();
  const r = runScript('desktop-start.mjs', c.root);
  assert.notEqual(r.status, 0);
  for (const words of [
    `Electron ${ELECTRON_VERSION}`,
    'ELECTRON_MIRROR',
    'electron_config_cache',
    'node node_modules/electron/install.js',
    'npm run demo',
    'fetch failed',
  ]) {
    assert.ok(r.stderr.includes(words), `the paragraph mentions ${words}:\n${r.stderr}`);
  }
  assertOneParagraph(r.stderr);
  assertNoStackTrace(r.stdout + r.stderr);
  assert.deepEqual(
    c.calls().map((call) => call.tool),
    ['install'],
    "only Electron's own installer ran: no native build",
  );
  assert.deepEqual(c.files(), before, 'nothing was written into the checkout');
});

test('with ELECTRON_SKIP_BINARY_DOWNLOAD set the launcher does not try the download, and says so', (t) => {
  const c = fakeCheckout({ electronBinary: false, installer: 'builds' });
  t.after(c.cleanup);
  const r = runScript('desktop-start.mjs', c.root, [], { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /ELECTRON_SKIP_BINARY_DOWNLOAD/);
  assert.match(r.stderr, /npm run demo/);
  assertNoStackTrace(r.stderr);
  assert.deepEqual(c.calls(), []);
});

test("once Electron's installer fetches the binary, the launcher builds better-sqlite3 for Electron and lets npm start go on", (t) => {
  const c = fakeCheckout({ electronBinary: false, installer: 'builds', prebuild: 'builds' });
  t.after(c.cleanup);
  const r = runScript('desktop-start.mjs', c.root);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(c.files().get(nativeFile), ELECTRON_BUILD);
  assert.deepEqual(
    c.calls().map((call) => call.tool),
    ['install', 'prebuild'],
  );

  const again = runScript('desktop-start.mjs', c.root);
  assert.equal(again.status, 0, again.stderr);
  assert.equal(c.calls().length, 2, 'a second start neither downloads nor builds again');
});

test('when better-sqlite3 cannot be built for Electron, the launcher says what failed and how to fix it, in one paragraph', (t) => {
  const c = fakeCheckout({ electronBinary: true, prebuild: 'fails', nodeGyp: 'fails' });
  t.after(c.cleanup);
  const r = runScript('desktop-start.mjs', c.root);
  assert.notEqual(r.status, 0);
  for (const words of [
    'better-sqlite3',
    `Electron ${ELECTRON_VERSION}`,
    'getaddrinfo ENOTFOUND github.com',
    'Could not download the headers',
    'npm_config_nodedir',
    'npm run native:electron',
    'npm run demo',
  ]) {
    assert.ok(r.stderr.includes(words), `the paragraph mentions ${words}:\n${r.stderr}`);
  }
  assertOneParagraph(r.stderr);
  assertNoStackTrace(r.stderr);
  const files = c.files();
  assert.equal(files.has(nativeFile), false);
  assert.ok(
    [...files.keys()].some((f) => f.startsWith('native/') && f.endsWith('.log')),
    "the builders' output is kept in native/",
  );
});

test('npm start runs the launcher before building, and nothing rebuilds node_modules for Electron', () => {
  const scripts = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts;
  assert.equal(scripts.start, 'node bin/desktop-start.mjs && npm run build:app && electron .');
  for (const [name, script] of Object.entries(scripts)) {
    assert.doesNotMatch(
      script,
      /install-app-deps|electron-rebuild|rebuild:node|npm rebuild/,
      `${name} must not rebuild node_modules' better-sqlite3`,
    );
  }
});
