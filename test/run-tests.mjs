// Runs every *.test.ts under test/ with Node's own test runner (through tsx), prints the spec
// report, then one closing line "N passed, N failed, N skipped" for CI, and exits non-zero on any
// failure — a file that fails to load counts as a failure because node reports it as one.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';

const root = new URL('..', import.meta.url).pathname;
const only = process.argv.slice(2);

function findTests(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...findTests(full));
    else if (entry.name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const files = findTests(join(root, 'test'))
  .map((f) => relative(root, f))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const tapDir = mkdtempSync(join(tmpdir(), 'shotfarm-tap-'));
const tapFile = join(tapDir, 'report.tap');
const args = [
  '--import',
  'tsx',
  // Each file's process ends by process.exit() once idle: see the file for the teardown spin it avoids.
  '--import',
  './test/helpers/exit-when-idle.mjs',
  '--test',
  '--test-concurrency=2',
  '--test-timeout=300000',
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  '--test-reporter=tap',
  `--test-reporter-destination=${tapFile}`,
  ...files,
];
const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
// A hard ceiling so a wedged test can never hang CI. 40 min: the whole suite takes about 23 on a
// quiet 2-core machine (the store's conformance cases run a second time on PostgreSQL, the
// several-engines tests start their own clusters), and a loaded one has been seen near 30.
const CEILING_MIN = 40;
const ceiling = setTimeout(() => {
  child.kill('SIGKILL');
}, CEILING_MIN * 60_000);
child.on('exit', (code, signal) => {
  clearTimeout(ceiling);
  const tap = readFileSync(tapFile, 'utf8');
  const count = (name) => {
    const m = tap.match(new RegExp(`^# ${name} (\\d+)$`, 'm'));
    return m ? Number(m[1]) : 0;
  };
  rmSync(tapDir, { recursive: true, force: true });
  if (signal) {
    // A killed run writes no summary: count what had finished so the line below is not "0 passed".
    const finished = tap.match(/^ok \d+/gm)?.length ?? 0;
    console.error(`the suite was stopped (${signal}) after ${CEILING_MIN} min; ${finished} tests had passed by then`);
  }
  const passed = count('pass');
  const failed = count('fail') + count('cancelled') + (signal ? 1 : 0);
  const skipped = count('skipped') + count('todo');
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exit(code === 0 && failed === 0 ? 0 : 1);
});
