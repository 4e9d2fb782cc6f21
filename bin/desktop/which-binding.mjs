// Answers "which better-sqlite3 does each runtime load?": the Node build in node_modules (the CLI,
// the server, the tests) and the Electron build in native/ (the desktop app), with the ABI each
// needs and whether this Node can load it — Node must load the first and refuse the second.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { firstLine } from './paragraph.mjs';
import { electronPackage } from './electron-binary.mjs';
import { BINDING_FILE, nativeBindingFile } from './native-binding.mjs';

/** What this Node makes of a .node file: loads it, refuses it (saying why), or there is none. */
function probe(file) {
  if (!existsSync(file)) return { loads: false, why: 'missing' };
  try {
    process.dlopen({ exports: {} }, file);
    return { loads: true, why: '' };
  } catch (err) {
    return { loads: false, why: firstLine(err.message) };
  }
}

export function describeBindings(root) {
  const nodeBuild = join(root, 'node_modules', 'better-sqlite3', 'build', 'Release', BINDING_FILE);
  const node = probe(nodeBuild);
  const lines = [
    `Node ${process.versions.node} (NODE_MODULE_VERSION ${process.versions.modules}) loads ${relative(root, nodeBuild)}: ${node.loads ? 'ok' : `NOT USABLE (${node.why}; \`npm rebuild better-sqlite3\` rebuilds it for Node)`}`,
  ];
  const electron = electronPackage(root);
  if (!electron) return [...lines, 'Electron: the electron package is not installed.'].join('\n');
  const abiFile = join(electron.dir, 'abi_version');
  const abi = existsSync(abiFile) ? readFileSync(abiFile, 'utf8').trim() : 'unknown';
  const file = nativeBindingFile(root, electron.version);
  lines.push(
    `Electron ${electron.version} (NODE_MODULE_VERSION ${abi}) loads ${relative(root, file)}: ${electronVerdict(file, abi)}`,
  );
  return lines.join('\n');
}

/** Node refusing the Electron build because it is compiled for Electron's ABI is the good answer. */
function electronVerdict(file, abi) {
  const r = probe(file);
  if (r.why === 'missing') return 'missing (`npm run native:electron` builds it)';
  if (r.loads) return 'NOT USABLE (this Node loads it, so it is a Node build; `npm run native:electron` rebuilds it)';
  const built = /NODE_MODULE_VERSION (\d+)/.exec(r.why)?.[1];
  if (built === abi) return `ok (compiled for NODE_MODULE_VERSION ${abi}, which is why this Node refuses it)`;
  if (built) return `NOT USABLE (compiled for NODE_MODULE_VERSION ${built}; \`npm run native:electron\` rebuilds it)`;
  return `present, not checkable from Node (${r.why})`;
}
