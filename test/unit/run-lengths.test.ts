import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstExpectedEnd, RunLengths } from '../../electron/engine/pools/comfy-lan/run-lengths.js';

test("a workstation's typical run is the median of its last nine, none before the first ends", () => {
  const r = new RunLengths();
  assert.equal(r.typical(), null);
  for (const ms of [600, 610, 5_000]) r.add(ms);
  assert.equal(r.typical(), 610, 'one slow run does not move it far');
  r.add(-5);
  r.add(Number.NaN);
  assert.equal(r.typical(), 610, 'nonsense lengths are ignored');
  for (let i = 0; i < 9; i++) r.add(100);
  assert.equal(r.typical(), 100, 'only the last nine count');
});

test('the first expected end counts from when a prompt actually started, else from when it took its slot', () => {
  assert.equal(firstExpectedEnd([{ since: 1_000, startedAt: 1_200 }], 600), 1_800, 'started: from its start');
  assert.equal(firstExpectedEnd([{ since: 1_000, startedAt: null }], 600), 1_600, 'not started yet: from its slot');
  assert.equal(
    firstExpectedEnd(
      [
        { since: 1_000, startedAt: 1_300 },
        { since: 900, startedAt: 950 },
      ],
      600,
    ),
    1_550,
    'the first of several to end',
  );
  assert.equal(firstExpectedEnd([{ since: 1_000, startedAt: 1_200 }], null), null, 'no estimate');
  assert.equal(firstExpectedEnd([], 600), null, 'nothing runs');
});
