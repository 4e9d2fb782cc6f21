#!/usr/bin/env node
// `npm run native:electron`: builds better-sqlite3 for the installed Electron into native/ (see
// desktop/native-binding.mjs for why not in node_modules); `--platform P --arch A` fetch the
// prebuilt binary for another OS or CPU (for packaging). `--which` only prints which binary Node and
// Electron each load. `--root DIR` works on another checkout (the tests use a fake one).
import { checkoutRoot, option } from './desktop/cli-args.mjs';
import { electronPackage } from './desktop/electron-binary.mjs';
import { buildFailure, buildNativeBinding } from './desktop/native-binding.mjs';
import { fail, say } from './desktop/paragraph.mjs';
import { describeBindings } from './desktop/which-binding.mjs';

const root = checkoutRoot();

if (process.argv.includes('--which')) {
  console.log(describeBindings(root));
} else {
  const electron = electronPackage(root);
  if (!electron)
    fail(
      'Building better-sqlite3 for Electron needs the `electron` package (for its version), which is not installed here. Run `npm install` first.',
    );
  const result = buildNativeBinding(root, electron.version, {
    platform: option('--platform'),
    arch: option('--arch'),
    log: say,
  });
  if (!result.ok) fail(buildFailure(root, electron.version, result));
  say(`better-sqlite3 for Electron ${electron.version} is in ${result.file}.`);
}
