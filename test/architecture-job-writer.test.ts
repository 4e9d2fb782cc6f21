/**
 * The renderer's job map (`jobs` and `progress` in the store) has one writer, the jobs slice
 * (renderer/store/jobs-slice.ts, applying job-map.ts): a second writer is how a cancelled job's
 * progress bar came to outlive its row. Held twice: no `set`/`setState` call elsewhere in renderer/
 * names the map's keys or spreads a patch that could carry them, and the setter every other slice
 * and component gets refuses those keys at compile time (a planted second writer fails to compile).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { REPO } from './helpers/engine.js';

const WRITER = 'renderer/store/jobs-slice.ts';
const MAP_KEYS = ['jobs', 'progress'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The object literals a state patch is written as: the argument itself, or what its updater returns. */
function patchLiterals(arg: ts.Expression): ts.ObjectLiteralExpression[] {
  const unwrap = (e: ts.Expression): ts.Expression => (ts.isParenthesizedExpression(e) ? unwrap(e.expression) : e);
  const e = unwrap(arg);
  if (ts.isObjectLiteralExpression(e)) return [e];
  if (!ts.isArrowFunction(e) && !ts.isFunctionExpression(e)) return [];
  if (!ts.isBlock(e.body)) return patchLiterals(e.body);
  const out: ts.ObjectLiteralExpression[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isReturnStatement(n) && n.expression) out.push(...patchLiterals(n.expression));
    else if (!ts.isFunctionLike(n)) ts.forEachChild(n, visit);
  };
  ts.forEachChild(e.body, visit);
  return out;
}

/**
 * `x.setState(…)` calls, and in the store's slices `set(…)` calls, whose patch names a job-map key
 * or spreads something in (which could carry one). Outside the store a `set` is a component's own.
 */
export function mapWrites(file: string, text: string): string[] {
  const inStore = file.startsWith('renderer/store/');
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && n.arguments[0]) {
      const callee = n.expression;
      const isSetter =
        (inStore && ts.isIdentifier(callee) && callee.text === 'set') ||
        (ts.isPropertyAccessExpression(callee) && callee.name.text === 'setState');
      if (isSetter) {
        for (const literal of patchLiterals(n.arguments[0])) {
          for (const p of literal.properties) {
            const name = p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : null;
            const line = source.getLineAndCharacterOfPosition(p.getStart()).line + 1;
            if (ts.isSpreadAssignment(p))
              out.push(`${file}:${line} spreads ${p.expression.getText()} into a state patch`);
            else if (name && MAP_KEYS.includes(name)) out.push(`${file}:${line} writes ${name}`);
          }
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return out;
}

test("only the jobs slice writes the renderer's job map (jobs, progress)", () => {
  const offenders = sources(join(REPO, 'renderer'))
    .map((full) => relative(REPO, full))
    .filter((file) => file !== WRITER)
    .flatMap((file) => mapWrites(file, readFileSync(join(REPO, file), 'utf8')));
  assert.deepEqual(offenders, []);
});

test('the writer check notices a slice or a component writing the map, and lets other patches be', () => {
  const old = [
    'set((s) => ({ jobs: Object.assign({ ...s.jobs }, Object.fromEntries(changed.map((j) => [j.id, j]))) }));',
    'if (v) store.setState((s) => ({ jobs: { ...s.jobs, [v.id]: v } }));',
    'set((s) => ({ ...mergeJobs(s, res.rows), total: res.total }));',
    'set(function (s) { if (x) return { progress: {} }; return {}; });',
  ].join('\n');
  assert.deepEqual(mapWrites('renderer/store/x.ts', old), [
    'renderer/store/x.ts:1 writes jobs',
    'renderer/store/x.ts:2 writes jobs',
    'renderer/store/x.ts:3 spreads mergeJobs(s, res.rows) into a state patch',
    'renderer/store/x.ts:4 writes progress',
  ]);
  const fine =
    "set((s) => ({ query: { ...s.query, ...patch }, pages: {} })); store.setState({ connection }); client.call('jobs.restoreOrder', { jobs: plan.order });";
  assert.deepEqual(mapWrites('renderer/store/y.ts', fine), []);
  assert.deepEqual(
    mapWrites('renderer/features/x.tsx', 'if (v) store.setState((s) => ({ jobs: { ...s.jobs, [v.id]: v } }));'),
    ['renderer/features/x.tsx:1 writes jobs'],
    'a component through the store',
  );
  assert.deepEqual(
    mapWrites('renderer/features/x.tsx', 'set({ ...f, [key]: value });'),
    [],
    "a component's own setter",
  );
});

test("a second writer of the job map does not compile: the slices' and the app's setter refuse its keys", {
  timeout: 120_000,
}, () => {
  const fixture = join(REPO, 'test/fixtures/job-map-writers/second-writer.ts');
  const config = ts.getParsedCommandLineOfConfigFile(
    join(REPO, 'renderer/tsconfig.json'),
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    },
  );
  assert.ok(config);
  const program = ts.createProgram({ rootNames: [fixture], options: config.options });
  const source = program.getSourceFile(fixture);
  assert.ok(source);
  const failing = new Set(
    ts.getPreEmitDiagnostics(program, source).map((d) => source.getLineAndCharacterOfPosition(d.start ?? 0).line + 1),
  );
  const lines = readFileSync(fixture, 'utf8').split('\n');
  const refused = lines.flatMap((l, i) => (l.includes('// REFUSED') ? [i + 1] : []));
  assert.equal(refused.length, 4);
  assert.deepEqual(
    [...failing].sort((a, b) => a - b),
    refused,
    'exactly the marked writes fail to compile',
  );
});
