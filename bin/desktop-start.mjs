#!/usr/bin/env node
// First step of `npm start` (then `npm run build:app && electron .`). Plain Node, no build, so that
// what cannot work fails in a second with advice instead of after minutes of building with a stack
// trace: Electron's binary must be installed (or downloadable), and better-sqlite3 must have an
// Electron build of its own in native/ (built here when missing; node_modules' Node build is never
// touched, so `npm test` keeps working). `--root DIR` checks another checkout (the tests' fake one).
import { existsSync } from 'node:fs';
import { checkoutRoot } from './desktop/cli-args.mjs';
import { ensureElectron } from './desktop/electron-binary.mjs';
import { buildFailure, buildNativeBinding, nativeBindingFile } from './desktop/native-binding.mjs';
import { fail, say } from './desktop/paragraph.mjs';

const root = checkoutRoot();

const electron = ensureElectron(root);
if (!existsSync(nativeBindingFile(root, electron.version))) {
  const result = buildNativeBinding(root, electron.version, { log: say });
  if (!result.ok) fail(buildFailure(root, electron.version, result));
}
