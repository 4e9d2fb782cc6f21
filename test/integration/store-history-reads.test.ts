/**
 * A farm's history only grows — a studio's store holds every job, attempt and event it ever ran —
 * so what the engine reads for each job, and every few seconds, is read by a bounded index search,
 * never by walking that history. Measured with 96k finished jobs in a farm's store (issue 30): a
 * claim's "tried on this workstation before?" walked every attempt the workstation ever ran (9 ms a
 * claim; the engine's CPU per job ~9 → ~17 ms), the blocked-jobs sweep walked every job stored after
 * its cursor (8 ms a chunk, a few chunks every probe interval), and the forecast's open runs read
 * every job (190 ms). The plans are SQLite's (no statistics kept, so an empty store plans as a full
 * one); the walk's behaviour is checked on both stores.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { ManualClock } from '../../electron/engine/clock.js';
import { migrate } from '../../electron/engine/store/migrate.js';
import { SQL_ATTEMPT_PLACES, SQL_OPEN_RUNS } from '../../electron/engine/store/attempt-store.js';
import {
  QUEUE_START,
  queueCursorOf,
  queuedAfter,
  SQL_QUEUED_LATER,
  SQL_QUEUED_SAME_TIME,
} from '../../electron/engine/store/job-store.js';
import { sqliteSqlDb } from '../../electron/engine/store/sql-db.js';
import { engineFor, importText } from '../helpers/engine.js';
import { jobCopies } from '../helpers/job-copies.js';
import { forEachStore } from '../helpers/test-store.js';

function planOf(sql: string, ...params: unknown[]): string {
  const db = sqliteSqlDb(new Database(':memory:'));
  migrate(db, new ManualClock());
  const text = (db.all(`EXPLAIN QUERY PLAN ${sql}`, ...params) as { detail: string }[])
    .map((p) => p.detail)
    .join(' | ');
  db.close();
  return text;
}

test("a claim reads the job's own attempts to know where it was tried, never the workstation's history", () => {
  const text = planOf(SQL_ATTEMPT_PLACES, 'job');
  assert.match(text, /SEARCH attempts USING .*INDEX \S+ \(job_id=\?\)/);
  assert.doesNotMatch(text, /attempts_instance|SCAN attempts/);
});

test('the open runs are read from the open attempts (attempts_live), each job by its id — never every job stored', () => {
  const text = planOf(SQL_OPEN_RUNS);
  assert.match(text, /attempts_live/);
  assert.match(text, /SEARCH j USING INDEX \S+ \(id=\?\)/);
  assert.doesNotMatch(text, /SCAN j\b|SCAN jobs/);
});

test("a walk of the queue reads queued rows only, also through an import's one shared enqueue time", () => {
  // Within one enqueue time the rowid bounds the search too: a chunk from the middle of a 100k-job
  // import does not read the import's first half again.
  assert.match(planOf(SQL_QUEUED_SAME_TIME, 0, 0, 1), /jobs_queued_age \(state=\? AND enqueued_at=\? AND rowid>\?\)/);
  const later = planOf(SQL_QUEUED_LATER, 0, 1);
  assert.match(later, /jobs_queued_age \(state=\? AND enqueued_at>\?\)/);
  assert.doesNotMatch(later, /TEMP B-TREE/, 'the order comes from the index, not a sort');
});

forEachStore((kind) => {
  test(`a walk of the queue in chunks meets every queued job once, past finished ones and across a shared enqueue time, on ${kind}`, {
    timeout: 120_000,
  }, async (ctx) => {
    const t = await engineFor(ctx, { store: kind });
    await importText(
      t.engine,
      'walk.json',
      JSON.stringify({
        project: 'Walk',
        episode: 'ep1',
        shots: [{ id: 'sh010', stage: 'keyframe', template: 'keyframe-img2img', parameters: { denoise: 0.4 } }],
      }),
    );
    const db = t.engine.db;
    const like = (db.one('SELECT id FROM jobs') as { id: string }).id;
    db.run("UPDATE jobs SET state = 'held' WHERE id = ?", like);
    // Finished history between and around the queued runs, interleaved in rowid order.
    jobCopies(db, like, 40, { tag: 'done-a', state: 'completed', enqueuedAt: 1_000 });
    jobCopies(db, like, 23, { tag: 'tie', state: 'queued', enqueuedAt: 5_000, takeFrom: 100 }); // an import: one enqueue time, 23 jobs
    jobCopies(db, like, 40, { tag: 'done-b', state: 'completed', enqueuedAt: 5_000, takeFrom: 200 });
    jobCopies(db, like, 4, { tag: 'early', state: 'queued', enqueuedAt: 2_000, takeFrom: 300 }); // stored later, enqueued earlier
    jobCopies(db, like, 6, { tag: 'late', state: 'queued', enqueuedAt: 9_000, takeFrom: 400 });
    jobCopies(db, like, 5, { tag: 'failed', state: 'failed_final', enqueuedAt: 9_000, takeFrom: 500 });
    const queued = (db.all("SELECT id FROM jobs WHERE state = 'queued'") as { id: string }[]).map((r) => r.id);
    assert.equal(queued.length, 33);

    const seen: string[] = [];
    const order: [number, number][] = [];
    for (let after = QUEUE_START, chunks = 0; ; chunks++) {
      assert.ok(chunks < 50, 'the walk ends');
      const rows = queuedAfter(db, after, 5);
      if (rows.length === 0) break;
      for (const r of rows) {
        assert.equal(r.state, 'queued');
        seen.push(r.id);
        order.push([r.enqueued_at, r.row_n]);
      }
      after = queueCursorOf(rows[rows.length - 1] as (typeof rows)[number]);
    }
    assert.deepEqual([...seen].sort(), [...queued].sort(), 'every queued job, none twice, nothing else');
    const sorted = [...order].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    assert.deepEqual(order, sorted, 'in (enqueue time, rowid) order');
    assert.deepEqual(
      seen.slice(0, 4).map((id) => id.replace(/\d+$/, '')),
      Array(4).fill(`${like}-early`),
      'the earliest enqueued first, whenever it was stored',
    );
  });
});
