import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from './helpers/engine.js';

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** Runs dependency-cruiser with the repo's zone rules, from `cwd`, on `paths`. */
function cruise(cwd: string, paths: string[]): Violation[] {
  const bin = join(REPO, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
  const r = spawnSync(process.execPath, [bin, '--config', join(REPO, '.dependency-cruiser.cjs'), '--output-type', 'json', ...paths], {
    cwd, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024,
  });
  assert.ok(r.stdout, `dependency-cruiser printed nothing: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

test('the import zones hold across the repo (shared, engine, hosts, renderer)', () => {
  const existing = ['shared', 'electron', 'renderer'].filter((p) => spawnSync('test', ['-d', join(REPO, p)]).status === 0);
  const violations = cruise(REPO, existing);
  assert.deepEqual(violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`), []);
});

test('the zone rules catch an engine importing electron, shared importing the engine, a renderer importing Node, the desktop borrowing from the server', () => {
  const fixture = join(REPO, 'test/fixtures/zone-violations');
  const rules = new Set(cruise(fixture, ['shared', 'electron', 'renderer']).map((v) => v.rule.name));
  for (const rule of ['shared-imports-nothing', 'engine-no-electron', 'renderer-shared-only', 'no-node-builtins-in-renderer-or-shared', 'desktop-not-server']) {
    assert.ok(rules.has(rule), `expected a ${rule} violation, got ${[...rules].join(', ')}`);
  }
});

for (const project of ['tsconfig.json', 'renderer/tsconfig.json', 'tsconfig.electron.json']) {
  test(`${project} type-checks under strict settings`, () => {
    const tsc = join(REPO, 'node_modules/typescript/bin/tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', join(REPO, project), '--noEmit'], { cwd: REPO, encoding: 'utf8', timeout: 300_000 });
    assert.equal(r.status, 0, `tsc found errors:\n${r.stdout}${r.stderr}`);
  });
}
