/**
 * A running job's view (queries/job-live.ts) reads the open attempts of the jobs it shows, not
 * every open attempt of the farm: every announcement of a running job passes through it, and at
 * 200 GPUs with prefetch reading them all was 400 rows per announcement. What it reads must still
 * be that job's: its workstation's lost contact shows. Real SQLite file; the rows the store returns
 * are counted through a tap on the real connection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { withLive } from '../../electron/engine/queries/job-live.js';
import { claimAttempt } from '../../electron/engine/store/attempt-store.js';
import type { Db } from '../../electron/engine/store/database.js';
import { engineFor, importText, RESOURCES } from '../helpers/engine.js';

const sample = readFileSync(`${RESOURCES}samples/shot_list.json`, 'utf8');

test("a running job's view reads its own open attempt, not every open attempt of the farm", async (ctx) => {
  const t = await engineFor(ctx);
  const db = t.engine.db;
  const inst = await t.engine.call('instances.add', { name: 'gpu-1', url: 'http://127.0.0.1:1', tags: [] });
  const { result } = await importText(t.engine, 'shot_list.json', sample);
  const queued = result.jobIds.filter(
    (id) => (db.one('SELECT state FROM jobs WHERE id = ?', id) as { state: string }).state === 'queued',
  );
  assert.ok(queued.length >= 3, 'the sample has three queued jobs to run');
  for (const [i, jobId] of queued.slice(0, 3).entries())
    claimAttempt(db, t.clock, {
      jobId,
      attemptId: `att-${i}`,
      instanceId: inst.id,
      instanceName: 'gpu-1',
      gpuName: null,
      vramAtDispatch: null,
      leaseMs: 60_000,
    });
  db.run("UPDATE attempts SET contact_lost_at = 5000, requeue_at = 9000 WHERE id = 'att-1'");
  const views = (await t.engine.call('jobs.list', { filter: { states: ['running'] } })).rows;
  assert.equal(views.length, 3);
  const lost = views.find((v) => v.id === queued[1]);
  assert.ok(lost);

  let attemptRows = 0;
  const tapped = Object.assign(Object.create(db) as Db, {
    all<T>(sql: string, ...params: unknown[]): T[] {
      const rows = db.all<T>(sql, ...params);
      if (/\battempts\b/.test(sql)) attemptRows += rows.length;
      return rows;
    },
  });
  const [view] = withLive(tapped, null, [{ ...lost, contact: null }], t.clock.now());
  assert.equal(attemptRows, 1, 'one open attempt read: its own, of the three open');
  assert.deepEqual(view?.contact, { instanceName: 'gpu-1', lostAt: 5000, requeueAt: 9000 });
});
