/**
 * A studio-sized shot list on both stores: 100,000 rows land with every job's creation event, its
 * shot and its dependency, written a few hundred rows per statement (store/bulk.ts). (The same
 * list twice is integration/import.test.ts's; the preview finds stored ids 500 at a time.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engineFor, type TestEngine } from '../helpers/engine.js';
import { twoStageList } from '../helpers/shot-lists.js';
import { forEachStore } from '../helpers/test-store.js';

const BIG = 100_000;

function count(t: TestEngine, sql: string): number {
  return (t.engine.db.one(sql) as { n: number }).n;
}

forEachStore((store) => {
  test(`a 100,000-row shot list lands every job with its creation event, shot and dependency on ${store}`, {
    timeout: 280_000,
  }, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const content = twoStageList(BIG / 2);
    const preview = await t.engine.call('import.preview', { fileName: 'big.json', content });
    assert.deepEqual(preview.counts, { new: BIG, duplicate: 0, error: 0 });
    const result = await t.engine.call('import.commit', { previewId: preview.previewId });
    assert.equal(result.imported, BIG);
    assert.equal(new Set(result.jobIds).size, BIG);
    assert.equal(count(t, 'SELECT COUNT(*) AS n FROM jobs'), BIG);
    assert.equal(count(t, 'SELECT COUNT(*) AS n FROM shots'), BIG / 2);
    // Read once and joined here: a join of 100k rows on a table the planner still thinks empty is
    // not what this test is about.
    const jobs = new Map(
      (
        t.engine.db.all('SELECT id, shot_id, stage, state, depends_on FROM jobs') as {
          id: string;
          shot_id: number;
          stage: string;
          state: string;
          depends_on: string | null;
        }[]
      ).map((j) => [j.id, j]),
    );
    // One creation event per job, in the job's first state.
    const events = t.engine.db.all('SELECT job_id, from_state, to_state FROM job_events') as {
      job_id: string;
      from_state: string | null;
      to_state: string;
    }[];
    assert.equal(events.length, BIG);
    assert.equal(new Set(events.map((e) => e.job_id)).size, BIG);
    assert.ok(events.every((e) => e.from_state === null && e.to_state === jobs.get(e.job_id)?.state));
    // Every motion clip waits, pending, for its own shot's keyframe; every keyframe is queued.
    let motions = 0;
    for (const j of jobs.values()) {
      if (j.stage === 'keyframe') {
        assert.equal(j.state, 'queued');
        continue;
      }
      const k = jobs.get(j.depends_on ?? '');
      assert.ok(j.state === 'pending' && k?.stage === 'keyframe' && k.shot_id === j.shot_id, `motion ${j.id}`);
      motions++;
    }
    assert.equal(motions, BIG / 2);
  });
});
