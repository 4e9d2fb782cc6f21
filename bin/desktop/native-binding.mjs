// Builds better-sqlite3 for Electron into a folder of its own, native/electron-<version>-<platform>-
// <arch>/better_sqlite3.node, from a temporary copy of node_modules/better-sqlite3: node_modules
// keeps the Node build that the CLI, the server and `npm test` load, so `npm start` and `npm test`
// never undo each other. The app passes this file to better-sqlite3 (its `nativeBinding` option).
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';

export const BINDING_FILE = 'better_sqlite3.node';

/** The folder of one Electron build (electron/main/paths.ts computes the same path at run time). */
export function nativeBindingDir(root, electronVersion, platform = process.platform, arch = process.arch) {
  return join(root, 'native', `electron-${electronVersion}-${platform}-${arch}`);
}

export function nativeBindingFile(root, electronVersion, platform = process.platform, arch = process.arch) {
  return join(nativeBindingDir(root, electronVersion, platform, arch), BINDING_FILE);
}

/**
 * The two ways to get the binary, tried in order: better-sqlite3's prebuilt Electron binary from its
 * GitHub releases (what its own install script does for Node; it also serves another OS, for
 * packaging), then compiling it with node-gyp against Electron's headers (this OS only). Both are
 * run from root's node_modules, inside the temporary copy.
 */
function builders(root, version, platform, arch) {
  const headers = process.env.npm_config_disturl || 'https://electronjs.org/headers';
  return [
    {
      what: 'downloading the prebuilt binary',
      tool: join(root, 'node_modules', 'prebuild-install', 'bin.js'),
      args: ['--runtime', 'electron', '--target', version, '--arch', arch, '--platform', platform, '--verbose'],
    },
    {
      what: 'compiling it',
      tool: join(root, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
      args: ['rebuild', '--release', `--target=${version}`, `--arch=${arch}`, `--dist-url=${headers}`],
      only: platform === process.platform ? null : `only possible on ${platform} itself`,
    },
  ];
}

/**
 * Builds root's Electron binary of better-sqlite3 (for this OS and CPU unless told otherwise).
 * Returns { ok: true, file } or { ok: false, reasons, log } — reasons one line per builder, log the
 * file holding their full output.
 */
export function buildNativeBinding(root, electronVersion, o = {}) {
  const { platform = process.platform, arch = process.arch, log = () => undefined } = o;
  const source = join(root, 'node_modules', 'better-sqlite3');
  const outDir = nativeBindingDir(root, electronVersion, platform, arch);
  const logFile = `${outDir}.log`;
  if (!existsSync(join(source, 'package.json')))
    return {
      ok: false,
      reasons: ['node_modules/better-sqlite3 is not installed (run `npm install`)'],
      log: null,
      target: join(outDir, BINDING_FILE),
    };
  const work = mkdtempSync(join(tmpdir(), 'shotfarm-native-'));
  const reasons = [];
  const transcript = [];
  try {
    // Everything but build/: the copy compiles from source, and the Node build stays where it is.
    cpSync(source, work, {
      recursive: true,
      filter: (src) => !`${relative(source, src)}${sep}`.startsWith(`build${sep}`),
    });
    const built = join(work, 'build', 'Release', BINDING_FILE);
    for (const b of builders(root, electronVersion, platform, arch)) {
      if (b.only) {
        reasons.push(`${b.what}: ${b.only}`);
        continue;
      }
      if (!existsSync(b.tool)) {
        reasons.push(`${b.what}: ${relative(root, b.tool)} is not installed`);
        continue;
      }
      log(`${b.what} (better-sqlite3 for Electron ${electronVersion}, ${platform}-${arch})…`);
      const r = spawnSync(process.execPath, [b.tool, ...b.args], { cwd: work, encoding: 'utf8', timeout: 15 * 60_000 });
      const output = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `${r.error.message}\n` : ''}`;
      transcript.push(`$ ${b.tool} ${b.args.join(' ')}\n${output}`);
      if (r.status === 0 && existsSync(built))
        return { ok: true, file: install(built, outDir, `-${platform}-${arch}`) };
      reasons.push(`${b.what}: ${reasonOf(output) || `exit code ${r.status}`}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  mkdirSync(join(root, 'native'), { recursive: true });
  writeFileSync(logFile, transcript.join('\n'));
  return { ok: false, reasons, log: logFile, target: join(outDir, BINDING_FILE) };
}

/** Moves the new binary into place whole (a crash never leaves half a file) and drops older builds. */
function install(built, outDir, suffix) {
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, BINDING_FILE);
  copyFileSync(built, `${file}.partial`);
  renameSync(`${file}.partial`, file);
  rmSync(`${outDir}.log`, { force: true });
  // One build per platform and arch: packaging ships native/electron-*-<platform>-<arch>/.
  const parent = join(outDir, '..');
  for (const name of readdirSync(parent)) {
    if (name.startsWith('electron-') && name.endsWith(suffix) && join(parent, name) !== outDir)
      rmSync(join(parent, name), { recursive: true, force: true });
  }
  return file;
}

/** What a builder said about why it failed, in one line (node-gyp's "stack Error", prebuild-install's warning). */
export function reasonOf(output) {
  const lines = output.split(/\r?\n/);
  const gyp = lines.findIndex((l) => l.startsWith('gyp ERR! stack Error: '));
  if (gyp >= 0) {
    const message = [];
    for (const l of lines.slice(gyp)) {
      const m = /^gyp ERR! stack (?!\s*at )(.*)$/.exec(l);
      if (!m) break;
      message.push(m[1].replace(/^Error: /, ''));
    }
    return message.join(' ').replace(/\.$/, '');
  }
  // prebuild-install logs "prebuild-install warn <section> <message>".
  const warned = lines.filter((l) => /^prebuild-install (warn|ERR!) /.test(l)).pop();
  return (warned ?? lines.filter((l) => l.trim()).pop() ?? '')
    .replace(/^prebuild-install (warn|ERR!) \S+\s*/, '')
    .trim();
}

/** The paragraph for a failed build: what failed, why (one line per builder), and how to fix it. */
export function buildFailure(root, electronVersion, result) {
  const target = relative(root, result.target);
  const details = result.log ? ` The builders' full output is in ${relative(root, result.log)}.` : '';
  return `The desktop app needs better-sqlite3 built for Electron ${electronVersion} (${target}), and building it failed: ${result.reasons.join('; ')}. Nothing else was built, and node_modules (the Node build the CLI and \`npm test\` use) is untouched. To fix it, give this machine access to github.com (better-sqlite3's prebuilt Electron binaries; a mirror: npm_config_better_sqlite3_binary_host), or let it compile: that needs Electron's headers from electronjs.org/headers (a mirror: npm_config_disturl; unpacked headers: npm_config_nodedir) and a C++ toolchain (Python 3 with make and a C++ compiler, Xcode's command line tools, or Visual Studio Build Tools). Then run \`npm run native:electron\`.${details} Meanwhile \`npm run demo\` shows the same UI in a browser.`;
}
