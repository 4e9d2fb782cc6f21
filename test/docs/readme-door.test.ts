/**
 * The README is the door, not the manual: at most 250 lines, a link to every page of docs/, a map
 * that names every top-level folder and every folder of electron/ and electron/engine/ (and names
 * nothing that is gone), and the test command CI runs, written as .ci/run runs it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../helpers/engine.js';
import {
  manualPages,
  mapPaths,
  readRepoFile,
  relativeLinks,
  repoFolders,
  section,
  unnamedFolders,
} from './markdown.js';

const README = readRepoFile('README.md');

test('the README is at most 250 lines', () => {
  const lines = README.split('\n').length - (README.endsWith('\n') ? 1 : 0);
  assert.ok(lines <= 250, `README.md has ${lines} lines; move the detail to a page of docs/ and link it`);
});

test('the README links every page of docs/', () => {
  const linked = new Set(relativeLinks(README).map((l) => l.target.split('#')[0]));
  const missing = manualPages().filter((p) => p !== 'README.md' && !linked.has(p));
  assert.deepEqual(missing, [], 'docs pages the README does not link (add them to "Where to read on")');
});

test("the README's map names every top-level folder and every folder of electron/ and electron/engine/", () => {
  assert.deepEqual(unnamedFolders(repoFolders(), mapPaths(README)), [], 'add a line for each to "What is where"');
});

test("every path the README's map names exists", () => {
  assert.deepEqual(
    mapPaths(README).filter((p) => !existsSync(join(REPO, p))),
    [],
  );
});

test('the map check notices a new folder nobody named', () => {
  const folders = [...repoFolders(), 'electron/engine/brand-new', 'tools', 'electron/engine/store/deeper'];
  assert.deepEqual(unnamedFolders(folders, mapPaths(README)), ['electron/engine/brand-new', 'tools']);
});

test("the README's test command is what .ci/run runs after installing", () => {
  // The commands .ci/run runs after `npm ci`, joined as one shell line.
  const ci = readRepoFile('.ci/run').split('\n');
  const after = ci
    .slice(ci.findIndex((l) => l.startsWith('npm ci')) + 1)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const command = after.join(' && ');
  assert.equal(command, 'npm run build && npm test');
  for (const title of ['Quick start', 'Tests']) {
    const lines = [...section(README, title).matchAll(/```bash\n([\s\S]*?)```/g)].flatMap((m) =>
      (m[1] as string).split('\n'),
    );
    assert.ok(
      lines.some((l) => l.replace(/\s+#.*$/, '').trim() === command),
      `README "${title}" should give the test command \`${command}\``,
    );
  }
});
