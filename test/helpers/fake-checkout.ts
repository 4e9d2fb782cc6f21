/**
 * A stand-in checkout for the desktop scripts (bin/desktop-start.mjs, bin/native-electron.mjs run
 * with `--root`): an electron package with or without its binary, better-sqlite3's sources with a
 * "Node build" in build/, and stand-in builders (electron's installer, prebuild-install, node-gyp)
 * that record how they were run — outside the checkout, so the checkout shows only what the script
 * wrote — and then succeed or fail without any network.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { REPO } from './engine.js';
import { makeTempDir } from './temp-dir.js';

export const ELECTRON_VERSION = '45.0.0-fake';
export const NODE_BUILD = 'the node build';
export const ELECTRON_BUILD = 'the electron build';

export type ToolBehaviour = 'builds' | 'fails' | 'absent';

export interface FakeCheckoutOptions {
  electronBinary: boolean;
  installer?: ToolBehaviour;
  prebuild?: ToolBehaviour;
  nodeGyp?: ToolBehaviour;
}

export interface ToolCall {
  tool: string;
  argv: string[];
  cwd: string;
}

export interface FakeCheckout {
  root: string;
  calls: () => ToolCall[];
  /** Every file under the checkout with its contents, to compare before and after a run. */
  files: () => Map<string, string>;
  cleanup: () => void;
}

/** A builder stand-in: records its call, then writes what the real one would, or fails like it. */
function toolSource(name: string, record: string, behaviour: ToolBehaviour, output: string): string {
  const onSuccess =
    name === 'install'
      ? `fs.mkdirSync(path.join(__dirname, 'dist'), { recursive: true }); fs.writeFileSync(path.join(__dirname, 'dist', 'electron'), ''); fs.writeFileSync(path.join(__dirname, 'path.txt'), 'electron');`
      : `fs.mkdirSync(path.join(process.cwd(), 'build', 'Release'), { recursive: true }); fs.writeFileSync(path.join(process.cwd(), 'build', 'Release', 'better_sqlite3.node'), ${JSON.stringify(output)});`;
  const onFailure = `console.error(${JSON.stringify(`${failureText(name)}\n    at fake (/somewhere/${name}.js:1:1)`)}); process.exit(1);`;
  return `const fs = require('fs'); const path = require('path');
fs.appendFileSync(${JSON.stringify(record)}, JSON.stringify({ tool: ${JSON.stringify(name)}, argv: process.argv.slice(2), cwd: process.cwd() }) + '\\n');
${behaviour === 'builds' ? onSuccess : onFailure}
`;
}

function failureText(name: string): string {
  if (name === 'install') return 'TypeError: fetch failed';
  if (name === 'prebuild') return 'prebuild-install warn install getaddrinfo ENOTFOUND github.com';
  return 'gyp ERR! stack Error: Could not download the headers.';
}

function put(file: string, content: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}

export function fakeCheckout(o: FakeCheckoutOptions): FakeCheckout {
  const tmp = makeTempDir('shotfarm-checkout-');
  const root = join(tmp.path, 'checkout');
  const record = join(tmp.path, 'calls.jsonl');
  const electron = join(root, 'node_modules/electron');
  put(join(electron, 'package.json'), JSON.stringify({ name: 'electron', version: ELECTRON_VERSION }));
  put(join(electron, 'abi_version'), '150');
  if (o.electronBinary) {
    put(join(electron, 'path.txt'), 'electron');
    put(join(electron, 'dist/electron'), '');
  }
  const sqlite = join(root, 'node_modules/better-sqlite3');
  put(join(sqlite, 'package.json'), JSON.stringify({ name: 'better-sqlite3', version: '12.0.0' }));
  put(join(sqlite, 'binding.gyp'), '{}');
  put(join(sqlite, 'src/better_sqlite3.cpp'), '// sources');
  put(join(sqlite, 'build/Release/better_sqlite3.node'), NODE_BUILD);
  const tools: [string, string, ToolBehaviour][] = [
    ['install', join(electron, 'install.js'), o.installer ?? 'fails'],
    ['prebuild', join(root, 'node_modules/prebuild-install/bin.js'), o.prebuild ?? 'fails'],
    ['node-gyp', join(root, 'node_modules/node-gyp/bin/node-gyp.js'), o.nodeGyp ?? 'fails'],
  ];
  for (const [name, file, behaviour] of tools) {
    if (behaviour !== 'absent') put(file, toolSource(name, record, behaviour, ELECTRON_BUILD));
  }
  // A package.json of the checkout's own, so no stand-in is taken for an ES module.
  put(join(root, 'package.json'), JSON.stringify({ name: 'fake-checkout', private: true }));

  const files = (): Map<string, string> => {
    const out = new Map<string, string>();
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const full = join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        else out.set(relative(root, full), readFileSync(full, 'utf8'));
      }
    };
    walk(root);
    return out;
  };
  const calls = (): ToolCall[] =>
    existsSync(record)
      ? readFileSync(record, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as ToolCall)
      : [];
  return { root, calls, files, cleanup: tmp.cleanup };
}

export interface ScriptRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one of the repo's bin/ scripts against a checkout, with Electron's download switches cleared. */
export function runScript(script: string, root: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): ScriptRun {
  const clean = { ...process.env };
  delete clean.ELECTRON_SKIP_BINARY_DOWNLOAD;
  delete clean.ELECTRON_OVERRIDE_DIST_PATH;
  const r = spawnSync(process.execPath, [join(REPO, 'bin', script), '--root', root, ...extra], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...clean, ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A paragraph for a person carries no stack frames and no dumped error objects. */
export function assertNoStackTrace(text: string): void {
  if (/^\s+at /m.test(text) || /^\w*Error:/m.test(text) || /gyp ERR!/.test(text)) {
    throw new Error(`expected no stack trace or raw tool output, got:\n${text}`);
  }
}
