import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { insertAsset, insertAttempt } from '../helpers/attempt-fixtures.js';
import { engineFor, importText, RESOURCES } from '../helpers/engine.js';

const T0 = Date.UTC(2026, 11, 1, 9, 0, 0);

test('assets.list up to a ledger position keeps the same page while new outputs arrive, and counts the newer ones', async (ctx) => {
  const t = await engineFor(ctx);
  const { result } = await importText(
    t.engine,
    'shot_list.json',
    readFileSync(`${RESOURCES}samples/shot_list.json`, 'utf8'),
  );
  const jobId = result.jobIds[0]!;
  const att = insertAttempt(t.engine.db, {
    jobId,
    n: 1,
    instance: 'gpu-01',
    gpu: 'x',
    queuedAt: T0,
    dispatchedAt: T0,
    startedAt: T0,
    finishedAt: T0 + 5,
    outcome: 'completed',
  });
  // The fixture's ids are made from the path's length: each file a name of its own length.
  const name = (n: number) => `keyframe_${'0'.repeat(n)}.png`;
  const out = (n: number) => `/out/Moonfall/ep101/sh010/keyframe/take-1/${name(n)}`;
  for (const n of [1, 2, 3]) insertAsset(t.engine.db, jobId, att, out(n), T0 + n);

  const first = await t.engine.call('assets.list', { limit: 2 });
  assert.deepEqual([first.total, first.newer, first.rows.map((r) => r.fileName)], [3, 0, [name(3), name(2)]]);
  for (const n of [4, 5]) insertAsset(t.engine.db, jobId, att, out(n), T0 + n);

  const held = await t.engine.call('assets.list', { limit: 2, upTo: first.position });
  assert.deepEqual([held.total, held.newer], [3, 2]);
  assert.deepEqual(
    held.rows.map((r) => r.id),
    first.rows.map((r) => r.id),
    'the same cards in the same places',
  );
  assert.ok(held.position > first.position);
  assert.equal(
    (await t.engine.call('assets.list', { limit: 2, upTo: held.position })).rows[0]!.fileName,
    name(5),
    'shown on request',
  );
  assert.equal(
    (await t.engine.call('assets.list', { project: 'Other', upTo: first.position })).newer,
    0,
    'counted within the filter',
  );
});
