/**
 * The packaging configuration, checked without packaging (that needs the Electron download): it is
 * valid for the installed electron-builder, ships what the app loads, unpacks the native module, and
 * rebuilds it for Electron only while packaging — never at install time, which would break the tests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import YAML from 'yaml';
import { REPO } from '../helpers/engine.js';

const config = YAML.parse(readFileSync(join(REPO, 'electron-builder.yml'), 'utf8')) as Record<string, unknown>;
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { main: string; scripts: Record<string, string> };

test('electron-builder.yml is valid for the installed electron-builder', async () => {
  const require = createRequire(join(REPO, 'node_modules/electron-builder/package.json'));
  const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
    validateConfiguration: (c: unknown, logger: unknown) => Promise<void>;
  };
  const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
  await validateConfiguration(config, new DebugLogger(false));
  await assert.rejects(validateConfiguration({ ...config, notAnOption: true }, new DebugLogger(false)), /configuration/);
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

test('better-sqlite3 is rebuilt for Electron only while packaging, and unpacked from the asar', () => {
  assert.equal(config.npmRebuild, true);
  assert.ok((config.asarUnpack as string[]).some((g) => g.includes('better-sqlite3')));
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) {
    assert.doesNotMatch(pkg.scripts[hook] ?? '', /electron-rebuild|install-app-deps|@electron\/rebuild/, `${hook} must not rebuild for Electron`);
  }
});

test('the fuses turn off running the app binary as plain Node and Node debugging flags', () => {
  const fuses = config.electronFuses as Record<string, boolean>;
  assert.equal(fuses.runAsNode, false);
  assert.equal(fuses.enableNodeOptionsEnvironmentVariable, false);
  assert.equal(fuses.enableNodeCliInspectArguments, false);
  assert.equal(fuses.onlyLoadAppFromAsar, true);
});
