/** The per-address slow-down of wrong tokens: free mistakes, a doubling bounded wait, forgetting, a bounded memory. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../electron/engine/clock.js';
import { BadTokenBackoff } from '../../electron/server/bad-token-backoff.js';

test('a few wrong tokens are free; then the wait doubles up to its bound', () => {
  const clock = new ManualClock();
  const b = new BadTokenBackoff(clock, { free: 2, baseMs: 1_000, maxMs: 4_000 });
  const waits: number[] = [];
  for (let i = 0; i < 6; i++) {
    b.failed('10.0.0.5');
    waits.push(b.waitMs('10.0.0.5'));
  }
  assert.deepEqual(waits, [0, 0, 1_000, 2_000, 4_000, 4_000]);
  assert.equal(b.waitMs('10.0.0.6'), 0, 'another address is not slowed down');
  clock.advance(4_000);
  assert.equal(b.waitMs('10.0.0.5'), 0);
  b.failed('10.0.0.5');
  assert.equal(
    b.waitMs('10.0.0.5'),
    4_000,
    'only time forgives an address: the next wrong token waits the bound again',
  );
});

test('an address quiet for the forget time starts afresh; the memory is bounded', () => {
  const clock = new ManualClock();
  const b = new BadTokenBackoff(clock, { free: 1, baseMs: 1_000, maxMs: 1_000, forgetMs: 60_000, maxAddresses: 3 });
  b.failed('a');
  b.failed('a');
  clock.advance(61_000);
  b.failed('a');
  assert.equal(b.waitMs('a'), 0, 'forgotten: this is its first mistake again');
  b.failed('a');
  assert.equal(b.waitMs('a'), 1_000);
  for (const addr of ['b', 'c', 'd']) {
    b.failed(addr);
    b.failed(addr);
  }
  assert.equal(b.waitMs('a'), 0, 'the oldest address was dropped to keep three');
  assert.equal(b.waitMs('d'), 1_000);
});
