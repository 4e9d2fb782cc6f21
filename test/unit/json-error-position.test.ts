import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonErrorOffset, lineAndColumn } from '../../electron/engine/templates/json-error-position.js';

test('valid JSON has no error offset', () => {
  for (const ok of ['{}', '[1, 2.5e3, -0.1]', '{"a": {"b": [true, false, null, "x\\u00e9\\n"]}}', '  "s"  ']) {
    assert.equal(jsonErrorOffset(ok), -1, ok);
  }
});

test('the first error is located at its line and column', () => {
  const cases: [string, number, number][] = [
    ['{\n  "a": 1,\n}', 3, 1],
    ['{\n  "stage": oops\n}', 2, 12],
    ['[1, 2', 1, 6],
    ['{"a": "unterminated', 1, 20],
    ['{"a": 01}', 1, 8],
    ['{} extra', 1, 4],
  ];
  for (const [text, line, column] of cases) {
    const at = lineAndColumn(text, jsonErrorOffset(text));
    assert.deepEqual(at, { line, column }, JSON.stringify(text));
  }
});
