// Finds Electron's binary the way the electron package does (path.txt + dist/, or
// ELECTRON_OVERRIDE_DIST_PATH) without require('electron'): requiring it downloads on the spot and
// throws a stack trace when it cannot. When the binary is missing, runs electron's own installer once
// (it downloads into node_modules/electron/dist) and, if that fails too, explains what to do.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import envPaths from 'env-paths';
import { fail, firstLine, say } from './paragraph.mjs';

/** The installed electron package: its version and where its binary is (or would be). */
export function electronPackage(root) {
  const dir = join(root, 'node_modules', 'electron');
  let version;
  try {
    version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
  const pathTxt = join(dir, 'path.txt');
  const inDist = existsSync(pathTxt) ? readFileSync(pathTxt, 'utf8').trim() : null;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const binary = override ? join(override, inDist ?? 'electron') : inDist ? join(dir, 'dist', inDist) : null;
  return { dir, version, binary, present: binary !== null && existsSync(binary) };
}

/** Returns the electron package once its binary is there; otherwise prints why not and exits 1. */
export function ensureElectron(root) {
  const pkg = electronPackage(root);
  if (!pkg)
    fail(
      'The desktop app needs the `electron` package, which is not installed in this checkout. Run `npm install` (Electron is a dev dependency), then `npm start` again. Meanwhile `npm run demo` shows the same UI in a browser.',
    );
  if (pkg.present) return pkg;
  const installer = join(pkg.dir, 'install.js');
  let why = 'downloading it was not tried (ELECTRON_SKIP_BINARY_DOWNLOAD is set: unset it to let `npm start` try)';
  if (!process.env.ELECTRON_SKIP_BINARY_DOWNLOAD && existsSync(installer)) {
    say(
      `Electron ${pkg.version}'s binary is not installed yet; downloading it (node node_modules/electron/install.js)…`,
    );
    // Its stderr is a stack trace on failure: keep it, quote only the first line.
    const r = spawnSync(process.execPath, [installer], {
      cwd: pkg.dir,
      stdio: ['ignore', 'inherit', 'pipe'],
      encoding: 'utf8',
    });
    const again = electronPackage(root);
    if (r.status === 0 && again?.present) return again;
    why = `downloading it failed (${firstLine(r.stderr || r.error?.message || `exit code ${r.status}`)})`;
  }
  fail(missingElectron(root, pkg, why));
}

function missingElectron(root, pkg, why) {
  const zip = `electron-v${pkg.version}-${process.platform}-${process.arch}.zip`;
  const cache = process.env.electron_config_cache || envPaths('electron', { suffix: '' }).cache;
  return `The desktop app needs Electron ${pkg.version}'s binary, which is not installed in ${relative(root, pkg.dir) || pkg.dir} (no dist/), and ${why}. Nothing was built. To fix it, give this machine access to GitHub releases (github.com), or set ELECTRON_MIRROR to a mirror of them, or point electron_config_cache at an Electron cache folder that already holds ${zip} (the default cache is ${cache}); then run \`node node_modules/electron/install.js\` and \`npm start\` again.${nodeNote()} Meanwhile \`npm run demo\` shows the same UI in a browser.`;
}

/** Electron's tooling (its installer, @electron/get, @electron/rebuild) declares Node >= 22.12. */
function nodeNote() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  const recent = major > 22 || (major === 22 && minor >= 12);
  return recent
    ? ''
    : ` (Electron's own tooling declares Node ≥ 22.12 and this is Node ${process.versions.node}; if the download still fails, try Node 22.)`;
}
