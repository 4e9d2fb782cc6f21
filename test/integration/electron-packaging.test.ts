/**
 * The packaging configuration, checked without packaging (that needs the Electron download): it is
 * valid for the installed electron-builder, ships what the app loads, and takes better-sqlite3's
 * Electron build from native/ (put next to app.asar) instead of rebuilding node_modules in place,
 * which would break the tests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import YAML from 'yaml';
import { sqliteBindingPath } from '../../electron/main/paths.js';
import { REPO } from '../helpers/engine.js';

const config = YAML.parse(readFileSync(join(REPO, 'electron-builder.yml'), 'utf8')) as Record<string, unknown>;
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  main: string;
  scripts: Record<string, string>;
};

test('electron-builder.yml is valid for the installed electron-builder', async () => {
  const require = createRequire(join(REPO, 'node_modules/electron-builder/package.json'));
  const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
    validateConfiguration: (c: unknown, logger: unknown) => Promise<void>;
  };
  const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
  await validateConfiguration(config, new DebugLogger(false));
  await assert.rejects(
    validateConfiguration({ ...config, notAnOption: true }, new DebugLogger(false)),
    /configuration/,
  );
});

test('the package ships the built app and names it Shotfarm, for Linux, Windows and macOS', () => {
  assert.equal(config.productName, 'Shotfarm');
  assert.ok(typeof config.appId === 'string' && config.appId.length > 0);
  const files = config.files as string[];
  for (const f of ['package.json', 'dist/**/*']) assert.ok(files.includes(f), f);
  assert.equal(pkg.main, 'dist/electron/main/main.js', 'the entry the main process paths are relative to');
  assert.deepEqual((config.linux as { target: string[] }).target, ['AppImage', 'deb']);
  assert.deepEqual((config.win as { target: string[] }).target, ['nsis']);
  assert.deepEqual((config.mac as { target: string[] }).target, ['dmg']);
});

interface ExtraResource {
  from: string;
  to: string;
  filter: string[];
}

test('packaging never rebuilds node_modules; each platform ships its Electron build of better-sqlite3 where the app looks', () => {
  assert.equal(config.npmRebuild, false);
  assert.ok(
    (config.files as string[]).includes('!node_modules/better-sqlite3/{build,deps,src}/**'),
    'the Node build is not shipped',
  );
  for (const [os, platform] of [
    ['linux', 'linux'],
    ['win', 'win32'],
    ['mac', 'darwin'],
  ] as const) {
    const extra = (config[os] as { extraResources: ExtraResource[] }).extraResources;
    assert.deepEqual(
      extra,
      [{ from: 'native', to: 'native', filter: [`electron-*-${platform}-\${arch}/better_sqlite3.node`] }],
      os,
    );
    // What lands in <resources>/native/… is what the main process asks for in a packaged app.
    const shipped = join('/resources', extra[0]?.to ?? '', `electron-45.3.4-${platform}-x64/better_sqlite3.node`);
    assert.equal(sqliteBindingPath('/resources', '45.3.4', platform, 'x64'), shipped);
  }
  for (const [name, script] of Object.entries(pkg.scripts)) {
    if (!name.startsWith('package')) continue;
    assert.match(
      script,
      /^npm run native:electron\b.* && npm run build:app && electron-builder /,
      `${name} builds the Electron binary first`,
    );
  }
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) {
    assert.doesNotMatch(
      pkg.scripts[hook] ?? '',
      /electron-rebuild|install-app-deps|@electron\/rebuild|native:electron/,
      `${hook} must not build for Electron`,
    );
  }
});

test('the fuses turn off running the app binary as plain Node and Node debugging flags', () => {
  const fuses = config.electronFuses as Record<string, boolean>;
  assert.equal(fuses.runAsNode, false);
  assert.equal(fuses.enableNodeOptionsEnvironmentVariable, false);
  assert.equal(fuses.enableNodeCliInspectArguments, false);
  assert.equal(fuses.onlyLoadAppFromAsar, true);
});
