import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../electron/engine/clock.js';
import { LoopStall, STALL_MS } from '../../electron/engine/loop-stall.js';

function stallAt(clock: ManualClock) {
  let mono = 0;
  const said: string[] = [];
  const stall = new LoopStall({ clock, log: (m) => void said.push(m), monotonic: () => mono });
  stall.start();
  stall.stop(); // ticks are driven by hand below
  const tickAfter = (monoMs: number, wallMs = monoMs) => {
    mono += monoMs;
    clock.advance(wallMs);
    stall.tick();
  };
  return { stall, said, tickAfter };
}

test('a loop that ticks on time is never stalled; one late by more than a second stalled until that tick', () => {
  const clock = new ManualClock();
  const { stall, said, tickAfter } = stallAt(clock);
  for (let i = 0; i < 10; i++) tickAfter(250 + 200);
  assert.equal(stall.listeningSince(), 0, 'a busy loop (200 ms late) is not a stall');
  tickAfter(250 + STALL_MS + 4_000);
  assert.equal(stall.listeningSince(), clock.now());
  assert.match(said[0] ?? '', /stopped for 5\.0 s/);
});

test('a suspended machine stops the monotonic clock too: the wall clock tells the stall', () => {
  const clock = new ManualClock();
  const { stall, tickAfter } = stallAt(clock);
  tickAfter(250, 250 + 30_000);
  assert.equal(stall.listeningSince(), clock.now());
});
