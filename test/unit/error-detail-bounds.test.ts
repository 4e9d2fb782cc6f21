import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  keepEnd,
  messageText,
  TRACEBACK_MAX_CHARS,
  tracebackText,
} from '../../electron/engine/pools/comfy-lan/error-detail.js';

test('a traceback is joined in order and a huge one keeps its end (the innermost frame), marked where it was cut', () => {
  assert.equal(
    tracebackText(['  File "a.py", line 1\n', '  File "b.py", line 2\n']),
    '  File "a.py", line 1\n  File "b.py", line 2\n',
  );
  const frames = Array.from({ length: 2_000 }, (_, i) => `  File "custom_nodes/x.py", line ${i}, in f\n    g()\n`);
  const kept = tracebackText(frames) ?? '';
  assert.equal(kept.length, TRACEBACK_MAX_CHARS);
  assert.match(kept, /^… \(\d+ characters cut\)\n/);
  assert.ok(kept.endsWith('line 1999, in f\n    g()\n'));
});

test('what is not a traceback or a message is stored as nothing', () => {
  assert.equal(tracebackText(undefined), null);
  assert.equal(tracebackText('a string'), null);
  assert.equal(tracebackText([1, 2, {}]), null);
  assert.equal(messageText(''), null);
  assert.equal(messageText(null), null);
  assert.equal(keepEnd('short', 10), 'short');
});
