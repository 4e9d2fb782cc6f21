/**
 * Electronegativity (Doyensec's Electron security linter) over the shell's sources — main process
 * and preload, TypeScript parsed directly — must find nothing of HIGH severity. A deliberately
 * unsafe fixture proves the scan is live (a parse failure would otherwise look like a clean run).
 *
 * The scan runs in a child process: the tool registers globals and prints. Excluded: the check that
 * downloads Electron's release list — it grades the Electron version (a dependency bump), not this
 * code, and its answer would depend on the network.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../helpers/engine.js';
import { makeTempDir } from '../helpers/temp-dir.js';

interface Issue {
  id: string;
  severity: string;
  confidence: string;
  file: string;
  line: number;
  description: string;
}

// Check names as the tool matches them: the class name, lower-cased.
const EXCLUDED = ['AvailableSecurityFixesGlobalCheck'];

function scan(dir: string): { issues: Issue[]; errors: unknown[]; checks: number } {
  const runner = join(REPO, 'node_modules/@doyensec/electronegativity/dist/runner.js');
  const script = `
    const run = require(${JSON.stringify(runner)});
    run({ input: ${JSON.stringify(dir)}, customScan: [], excludeFromScan: ${JSON.stringify(EXCLUDED.map((e) => e.toLowerCase()))},
          electronVersionOverride: '45.3.4', parserPlugins: [], isRelative: true }, false)
      .then((r) => {
        const issues = r.issues.map((i) => ({ id: i.id, severity: i.severity.name, confidence: i.confidence.name, file: i.file,
          line: i.location ? i.location.line : 0, description: String(i.description).slice(0, 160) }));
        process.stdout.write('\\n@@RESULT@@' + JSON.stringify({ issues, errors: r.errors, checks: r.globalChecks + r.atomicChecks }));
      })
      .catch((e) => { console.error(e); process.exit(1); });`;
  const r = spawnSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    timeout: 90_000,
    env: { ...process.env, LANG: 'en-US' },
  });
  const at = r.stdout.indexOf('@@RESULT@@');
  assert.ok(at >= 0, `electronegativity produced no result (status ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout.slice(at + '@@RESULT@@'.length)) as { issues: Issue[]; errors: unknown[]; checks: number };
}

test('electronegativity finds no HIGH-severity issue in the main process and preload', { timeout: 120_000 }, (t) => {
  const tmp = makeTempDir('shotfarm-eneg-');
  t.after(tmp.cleanup);
  for (const part of ['main', 'preload'])
    cpSync(join(REPO, 'electron', part), join(tmp.path, 'electron', part), { recursive: true });
  const r = scan(tmp.path);
  assert.ok(r.checks > 30, `only ${r.checks} checks loaded`);
  assert.deepEqual(r.errors, [], 'every file was parsed (an unparsed file is an unscanned file)');
  const high = r.issues.filter((i) => i.severity === 'HIGH');
  assert.deepEqual(high, []);
});

test('the scan is live: an unsafe window (Node in the page, no navigation limits) is reported HIGH', {
  timeout: 120_000,
}, (t) => {
  const tmp = makeTempDir('shotfarm-eneg-bad-');
  t.after(tmp.cleanup);
  mkdirSync(join(tmp.path, 'src'));
  writeFileSync(
    join(tmp.path, 'src/main.ts'),
    `
    import { BrowserWindow } from 'electron';
    const win: BrowserWindow = new BrowserWindow({ webPreferences: { nodeIntegration: true, contextIsolation: false, sandbox: false } });
    win.loadURL('http://example.com/app.html');
  `,
  );
  const high = new Set(
    scan(tmp.path)
      .issues.filter((i) => i.severity === 'HIGH')
      .map((i) => i.id),
  );
  assert.ok(
    high.has('NODE_INTEGRATION_JS_CHECK') || high.has('CONTEXT_ISOLATION_JS_CHECK'),
    `got ${[...high].join(', ')}`,
  );
});
