/**
 * The house's formatter and linter (Biome, biome.jsonc) hold over the whole tree: `npm test` fails on
 * an unformatted file or a lint finding, and says how to fix it (`npm run format` writes both).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from './helpers/engine.js';

test('the tree is formatted and lint-clean under Biome (biome.jsonc)', () => {
  const r = spawnSync(join(REPO, 'node_modules/.bin/biome'), ['check', '--colors=off', '--max-diagnostics=30', '.'], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  assert.equal(r.error, undefined, `biome did not run: ${r.error?.message}`);
  assert.equal(
    r.status,
    0,
    `Biome found unformatted files or lint findings (run \`npm run format\` to fix what it can):\n${r.stdout}\n${r.stderr}`,
  );
});
