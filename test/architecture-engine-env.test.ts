/**
 * Nothing under electron/engine reads `process.env`: the hosts (the desktop app's engine process,
 * `serve`, `run`, the CLI's direct commands) read the environment once and pass it in through
 * EngineOptions.env (engine/engine-env.ts), so what an engine heeds — RUNPOD_API_KEY, the AWS_*
 * variables, a command hook's environment — is what its host gave it. The rule is shown to fire on
 * the planted reads in test/fixtures/engine-env-violations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import ts from 'typescript';
import { REPO } from './helpers/engine.js';
import { eachNode, lineOf, offences, offendingLines, plantedLines, type SourceRule } from './helpers/source-rules.js';

/** `process` itself, or `globalThis.process` / `global.process`. */
function isProcess(e: ts.Expression): boolean {
  return (
    (ts.isIdentifier(e) && e.text === 'process') || (ts.isPropertyAccessExpression(e) && e.name.text === 'process')
  );
}

const envReads: SourceRule = (_file, source) => {
  const out: { line: number; what: string }[] = [];
  const found = (n: ts.Node): void =>
    void out.push({ line: lineOf(source, n), what: 'reads process.env (take it from the host: EngineOptions.env)' });
  eachNode(source, (n) => {
    if (ts.isPropertyAccessExpression(n) && n.name.text === 'env' && isProcess(n.expression)) found(n);
    else if (
      ts.isElementAccessExpression(n) &&
      ts.isStringLiteralLike(n.argumentExpression) &&
      n.argumentExpression.text === 'env' &&
      isProcess(n.expression)
    )
      found(n);
    else if (
      ts.isVariableDeclaration(n) &&
      n.initializer &&
      isProcess(n.initializer) &&
      ts.isObjectBindingPattern(n.name) &&
      n.name.elements.some((e) => ((e.propertyName ?? e.name) as ts.Identifier).text === 'env')
    )
      found(n);
  });
  return out;
};

test('nothing under electron/engine reads process.env: the hosts pass the environment in', () => {
  assert.deepEqual(offences(REPO, 'electron/engine', envReads), []);
});

test('the process.env rule fires on each planted read (dotted, indexed, destructured, through globalThis)', () => {
  const fixture = join(REPO, 'test/fixtures/engine-env-violations');
  const planted = plantedLines(fixture);
  assert.equal(planted.length, 5, 'the fixture plants its violations');
  assert.deepEqual(offendingLines(offences(fixture, 'electron/engine', envReads)), planted);
});
