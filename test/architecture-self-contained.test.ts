import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { REPO } from './helpers/engine.js';

/**
 * The repository stands alone: a user's clone, a fork or a packaging machine has nothing beside
 * it. Every relative path literal in a source file ('../…', as in `new URL('../x', import.meta.url)`
 * or an import) must land inside the repository when resolved from that file's folder. A line
 * that holds a hostile path on purpose (a traversal test's input) says so with `hostile-path`.
 */
const ALLOW = 'hostile-path';

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs|sh)$|(^|\/)(run|Makefile)$/;

/** The files git knows (tracked or not ignored); outside a checkout, every file but build output. */
function sourceFiles(): string[] {
  const r = spawnSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' });
  const all = r.status === 0 ? r.stdout.split('\n') : walk(REPO);
  return all.filter((f) => f && SOURCE.test(f) && !f.startsWith('test/fixtures/zone-violations/'));
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (['node_modules', 'dist', '.git', 'release', 'test-results', 'bench-results'].includes(e.name)) return [];
    const full = join(dir, e.name);
    return e.isDirectory() ? walk(full) : [relative(REPO, full)];
  });
}

/** Relative path literals that climb (`../`), with the line they are on. */
export function climbingLiterals(text: string): { literal: string; line: number }[] {
  const out: { literal: string; line: number }[] = [];
  const lines = text.split('\n');
  lines.forEach((l, i) => {
    if (l.includes(ALLOW)) return;
    for (const m of l.matchAll(/(['"`])((?:\.\.\/|\.\/\.\.\/)+[^'"`\s]*)\1/g))
      out.push({ literal: m[2] as string, line: i + 1 });
  });
  return out;
}

export function escapesRoot(root: string, file: string, literal: string): boolean {
  const target = resolve(dirname(join(root, file)), literal);
  return target !== root && !target.startsWith(root + sep);
}

test('no source file, script or test reaches a path outside the repository', () => {
  const root = resolve(REPO);
  const offenders: string[] = [];
  for (const file of sourceFiles()) {
    for (const { literal, line } of climbingLiterals(readFileSync(join(root, file), 'utf8'))) {
      if (escapesRoot(root, file, literal)) offenders.push(`${file}:${line} ${literal}`);
    }
  }
  assert.deepEqual(offenders, []);
});

test('the outside-path check notices a fixture read from beside the repository', () => {
  const root = resolve(REPO);
  const up = '../'.repeat(3);
  const found = climbingLiterals(`const F = new URL('${up}shared/comfyui-recorded/', import.meta.url);`);
  assert.equal(found.length, 1);
  assert.ok(escapesRoot(root, 'test/unit/x.test.ts', found[0]?.literal ?? ''));
  assert.ok(!escapesRoot(root, 'test/unit/x.test.ts', '../fixtures/comfyui-recorded/'));
  assert.equal(relative(root, resolve(root, 'test/unit', '../fixtures')), join('test', 'fixtures'));
});
