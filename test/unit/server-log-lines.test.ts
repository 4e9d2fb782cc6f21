import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linesOf, naiveMs, stampReader, windowLog, type RawEntry } from '../../electron/engine/comfy/log-lines.js';
import {
  SERVER_LOG_LINE_MAX_CHARS,
  SERVER_LOG_MAX_LINES,
  parseServerLog,
  serverLogSchema,
} from '../../shared/server-log.js';
import { naiveIso } from '../simulator/server-log.js';

const NOW = Date.UTC(2026, 11, 4, 17, 0, 0, 0);
const DATE = new Date(NOW).toUTCString();

/** Entries as a server `offsetMin` east of UTC stamps them, `ms` before NOW. */
function at(offsetMin: number, ...writes: [number, string][]): RawEntry[] {
  return writes.map(([ago, m]) => ({ t: naiveIso(NOW - ago, offsetMin), m }));
}

test('a naive stamp is read as Python writes it, with or without microseconds', () => {
  assert.equal(naiveMs('2026-12-04T17:00:00'), NOW);
  assert.equal(naiveMs('2026-12-04T17:00:00.250000'), NOW + 250);
  assert.equal(naiveMs('2026-12-04T17:00:00.5'), NOW + 500);
  assert.equal(naiveMs('not a time'), null);
});

test("the server's zone comes from its newest entry against its Date header, to the quarter hour", () => {
  for (const offsetMin of [0, 330, -420, 345, 60]) {
    const entries = at(offsetMin, [4_000, 'a\n'], [1_500, 'b\n']);
    const read = stampReader(entries, DATE, NOW);
    assert.equal(read(entries[0]!.t), NOW - 4_000, `offset ${offsetMin}`);
    assert.equal(read(entries[1]!.t), NOW - 1_500, `offset ${offsetMin}`);
  }
});

test("the server's clock running ahead of the farm's is taken out through its Date header", () => {
  const ahead = 42_000; // the workstation's clock is 42 s ahead
  const entries = [{ t: naiveIso(NOW + ahead - 2_000, 120), m: 'x\n' }];
  const read = stampReader(entries, new Date(NOW + ahead).toUTCString(), NOW);
  assert.equal(read(entries[0]!.t), NOW - 2_000);
});

test('without a Date header the farm clock stands in; a zoned stamp is read as it is', () => {
  const entries = at(-300, [1_000, 'x\n']);
  assert.equal(stampReader(entries, null, NOW)(entries[0]!.t), NOW - 1_000);
  assert.equal(stampReader([], DATE, NOW)('2026-12-04T16:59:59+00:00'), NOW - 1_000);
});

test("writes become lines: print's text and newline, a traceback in one write, a progress bar's carriage returns, colours", () => {
  const entries = at(
    0,
    [3_000, 'got prompt'],
    [3_000, '\n'],
    [2_000, 'Traceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: boom\n'],
    [1_500, '\u001b[32m 50%|#####     | 10/20\r100%|##########| 20/20\u001b[0m\n'],
    [1_000, 'no newline at the end'],
  );
  const lines = linesOf(entries, stampReader(entries, DATE, NOW));
  assert.deepEqual(
    lines.map((l) => l.text),
    [
      'got prompt',
      'Traceback (most recent call last):',
      '  File "x.py", line 1',
      'RuntimeError: boom',
      '100%|##########| 20/20',
      'no newline at the end',
    ],
  );
  assert.equal(lines[0]!.at, NOW - 3_000, 'a line is stamped with the write that began it');
  assert.equal(lines[3]!.at, NOW - 2_000);
});

test('only the window is kept, the newest lines within the bounds, and what was left out is counted', () => {
  const many: [number, string][] = Array.from({ length: 260 }, (_, i) => [10_000 - i, `line ${i}\n`]);
  const entries = at(0, [120_000, 'long before\n'], ...many, [0, `${'x'.repeat(5_000)}\n`]);
  const log = windowLog(entries, DATE, NOW, NOW - 20_000, NOW + 5_000);
  assert.equal(log.lines.length, SERVER_LOG_MAX_LINES);
  assert.equal(log.cut, 261 - SERVER_LOG_MAX_LINES);
  assert.ok(!log.lines.some((l) => l.text === 'long before'));
  const last = log.lines[log.lines.length - 1]!.text;
  assert.ok(last.startsWith('x'.repeat(SERVER_LOG_LINE_MAX_CHARS)) && last.endsWith('(4000 characters cut)'));
  assert.ok(serverLogSchema.safeParse(log).success, 'what is stored passes the contract');
});

test('a stored log that is not the shape reads as none', () => {
  assert.equal(parseServerLog(null), null);
  assert.equal(parseServerLog('{"kind":"lines"}'), null);
  assert.equal(parseServerLog('not json'), null);
  assert.deepEqual(parseServerLog('{"kind":"not_offered","detail":"404"}'), { kind: 'not_offered', detail: '404' });
});
