/**
 * Lost-contact marks ride the tick's commit batch (a farm-wide silence is one fsync, not one per
 * workstation), and their jobs are announced only once the batch committed. The engine's own stall
 * (loop-stall.ts) restarts the grace time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContactWatch } from '../../electron/engine/pools/comfy-lan/contact-watch.js';
import { schedulerConfig } from '../../electron/engine/settings/farm-config.js';
import type { Db } from '../../electron/engine/store/database.js';

/** A batch that holds its writes until `commit()`, as the scheduler's does until the tick ends. */
function heldBatch() {
  const held: { fn: () => unknown; resolve: (v: unknown) => void }[] = [];
  return {
    held,
    add<T>(fn: () => T): Promise<T> {
      return new Promise<T>((resolve) => held.push({ fn, resolve: resolve as (v: unknown) => void }));
    },
    /** Commits what is held: each write's result is what the store would have returned. */
    commit(results: unknown[]): void {
      for (const [i, h] of held.splice(0).entries()) h.resolve(results[i]);
    },
  };
}

test('the marks of workstations going silent wait in the commit batch, and their jobs are announced once it committed', async () => {
  const batch = heldBatch();
  const announced: string[][] = [];
  const watch = new ContactWatch({
    // Never touched: a write made outside the batch would have to use it (and fail here).
    db: {} as Db,
    clock: { now: () => 1_000 },
    // The output root is never written here: any folder the OS gives for temporary files.
    config: schedulerConfig(join(tmpdir(), 'shotfarm-unused-output')),
    batch,
    announce: (jobs) => void announced.push([...jobs]),
    storedLastAnswer: () => null,
    listeningSince: () => 0,
    log: (m) => assert.fail(`nothing should be logged: ${m}`),
  });
  watch.follow('a1', 'job-1', 'ws-1');
  watch.follow('a2', 'job-2', 'ws-2');
  watch.missed('ws-1');
  watch.missed('ws-2');
  assert.equal(batch.held.length, 2, 'both marks queued in the batch');
  assert.deepEqual(announced, [], 'nothing announced before the commit');
  assert.ok(watch.isSilent('ws-1') && watch.loss('a1') !== null, 'the runner sees the mark from memory at once');
  batch.commit([['job-1'], ['job-2']]);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(announced, [['job-1'], ['job-2']]);
});

test('a workstation silent across the engine’s own stall is given up a grace time after the engine came back, not after its last answer', () => {
  let now = 1_000;
  let listeningSince = 0;
  const watch = new ContactWatch({
    db: {} as Db,
    clock: { now: () => now },
    config: schedulerConfig(join(tmpdir(), 'shotfarm-unused-output')),
    batch: heldBatch(),
    announce: () => undefined,
    storedLastAnswer: () => null,
    listeningSince: () => listeningSince,
    log: () => undefined,
  });
  const grace = schedulerConfig(join(tmpdir(), 'shotfarm-unused-output')).graceMs;
  watch.follow('a1', 'job-1', 'ws-1');
  watch.heard('ws-1');
  // The engine froze for 10 grace times right after that answer; on waking its requests fail.
  now += 10 * grace;
  listeningSince = now;
  watch.missed('ws-1');
  assert.deepEqual(watch.loss('a1'), { lostAt: 1_000, requeueAt: now + grace });
});
