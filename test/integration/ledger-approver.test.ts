/** A ledger approval records who approved and when; the ledger CSV appends them (and an un-approval clears them). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { LEDGER_HEADER } from '../../electron/engine/exports/ledger.js';
import { isoLocal } from '../../electron/engine/exports/local-time.js';
import { insertAsset, insertAttempt } from '../helpers/attempt-fixtures.js';
import { engineFor, importText, RESOURCES } from '../helpers/engine.js';

test('the approver and the time of approval are in the ledger export, after the old columns', async (ctx) => {
  const t = await engineFor(ctx);
  const { result } = await importText(
    t.engine,
    'shot_list.json',
    readFileSync(`${RESOURCES}samples/shot_list.json`, 'utf8'),
  );
  const jobId = result.jobIds[0] as string;
  const now = t.clock.now();
  const att = insertAttempt(t.engine.db, {
    jobId,
    n: 1,
    instance: 'gpu-01',
    gpu: 'x',
    queuedAt: now,
    dispatchedAt: now,
    startedAt: now,
    finishedAt: now + 5,
    outcome: 'completed',
  });
  insertAsset(t.engine.db, jobId, att, '/out/a.png', now + 5);
  const [asset] = (await t.engine.call('assets.list', {})).rows;
  await t.engine.call(
    'assets.approve',
    { ids: [asset!.id], approved: true },
    { kind: 'person', name: 'lena', role: 'lead' },
  );
  const read = async (name: string) => {
    await t.engine.call('export.ledger', { path: join(t.dir, name) });
    return parse(readFileSync(join(t.dir, name), 'utf8').replace(/^\uFEFF/, ''), { columns: true }) as Record<
      string,
      string
    >[];
  };
  const [row] = await read('ledger.csv');
  assert.deepEqual(Object.keys(row!).slice(-2), ['approved_by', 'approved_at']);
  assert.deepEqual(Object.keys(row!), [...LEDGER_HEADER]);
  assert.deepEqual(
    [row!.approved, row!.approved_by, row!.approved_at],
    ['yes', 'lena', isoLocal(now)],
    'local time with its offset, like created_at',
  );
  await t.engine.call(
    'assets.approve',
    { ids: [asset!.id], approved: false },
    { kind: 'person', name: 'lena', role: 'lead' },
  );
  const [after] = await read('ledger-2.csv');
  assert.deepEqual([after!.approved, after!.approved_by, after!.approved_at], ['no', '', '']);
});
