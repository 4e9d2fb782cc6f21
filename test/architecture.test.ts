import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { REPO } from './helpers/engine.js';

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** Runs dependency-cruiser with the repo's zone rules, from `cwd`, on `paths`. */
function cruise(cwd: string, paths: string[]): Violation[] {
  const bin = join(REPO, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
  const r = spawnSync(
    process.execPath,
    [bin, '--config', join(REPO, '.dependency-cruiser.cjs'), '--output-type', 'json', ...paths],
    {
      cwd,
      encoding: 'utf8',
      timeout: 120_000,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  assert.ok(r.stdout, `dependency-cruiser printed nothing: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

test('the import zones hold across the repo (shared, engine, hosts, renderer)', () => {
  const existing = ['shared', 'electron', 'renderer'].filter(
    (p) => spawnSync('test', ['-d', join(REPO, p)]).status === 0,
  );
  const violations = cruise(REPO, existing);
  assert.deepEqual(
    violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`),
    [],
  );
});

test('the zone rules catch an engine importing electron, shared importing the engine, a renderer importing Node, the desktop borrowing from the server, a renderer helper importing the store, a pool importing the scheduler, a view importing the running scheduler, a module other than the bridge worker importing pg, a module outside the store importing better-sqlite3', () => {
  const fixture = join(REPO, 'test/fixtures/zone-violations');
  const rules = new Set(cruise(fixture, ['shared', 'electron', 'renderer']).map((v) => v.rule.name));
  for (const rule of [
    'shared-imports-nothing',
    'engine-no-electron',
    'renderer-shared-only',
    'no-node-builtins-in-renderer-or-shared',
    'desktop-not-server',
    'renderer-lib-pure',
    'pools-below-scheduler',
    'views-not-scheduler-runtime',
    'pg-only-in-the-bridge-worker',
    'better-sqlite3-only-in-the-store',
  ]) {
    assert.ok(rules.has(rule), `expected a ${rule} violation, got ${[...rules].join(', ')}`);
  }
});

test('the pools-below-scheduler rule fires for every kind of workstation: the LAN ComfyUI pool and the RunPod pool', () => {
  const fixture = join(REPO, 'test/fixtures/zone-violations');
  const from = new Set(
    cruise(fixture, ['electron'])
      .filter((v) => v.rule.name === 'pools-below-scheduler')
      .map((v) => v.from),
  );
  assert.deepEqual([...from].sort(), [
    'electron/engine/pools/comfy-lan/pool.ts',
    'electron/engine/pools/runpod/pool.ts',
  ]);
  // And the real folders exist under those names, so the fixture plants where the code lives.
  for (const kind of ['comfy-lan', 'runpod'])
    assert.ok(existsSync(join(REPO, 'electron/engine/pools', kind, `${kind}-pool.ts`)), kind);
});

const PROJECTS = ['tsconfig.json', 'renderer/tsconfig.json', 'tsconfig.electron.json'];

function parseProject(project: string): ts.ParsedCommandLine {
  const host: ts.ParseConfigFileHost = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) =>
      assert.fail(`${project}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`),
  };
  const parsed = ts.getParsedCommandLineOfConfigFile(join(REPO, project), { noEmit: true }, host);
  assert.ok(parsed, project);
  return parsed;
}

/** What decides how a file is checked: the options, less where they came from. */
function checkingOptions(p: ts.ParsedCommandLine): string {
  const { configFilePath: _from, ...options } = p.options;
  return JSON.stringify(options);
}

// Projects whose files are checked under the same options (tsconfig.json and
// tsconfig.electron.json, which extends it) share one program: the engine files both import are
// then checked once, and every error is still reported under the projects that include the file.
test(`${PROJECTS.join(', ')} type-check under strict settings`, { timeout: 300_000 }, () => {
  const parsed = PROJECTS.map((project) => ({ project, config: parseProject(project) }));
  const groups = new Map<string, typeof parsed>();
  for (const p of parsed) {
    const key = checkingOptions(p.config);
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  const errors: string[] = [];
  for (const group of groups.values()) {
    const rootNames = [...new Set(group.flatMap((p) => p.config.fileNames))];
    const program = ts.createProgram({ rootNames, options: group[0]!.config.options });
    for (const d of [...group.flatMap((p) => p.config.errors), ...ts.getPreEmitDiagnostics(program)]) {
      const file = d.file?.fileName;
      const owners = group.filter((p) => file === undefined || p.config.fileNames.includes(file)).map((p) => p.project);
      const where =
        d.file && d.start !== undefined
          ? `${relative(REPO, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: `
          : '';
      const label = owners.length ? owners.join(', ') : `imported by ${group.map((p) => p.project).join(' or ')}`;
      errors.push(`[${label}] ${where}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
  }
  assert.deepEqual(errors, [], `tsc found errors:\n${errors.join('\n')}`);
});
