/**
 * A big import on both stores, written a few hundred rows per statement (store/bulk.ts): a row
 * whose write fails deep inside it leaves the store exactly as it was. And the preview and the
 * commit report their progress to the caller that asked, in order, ending at the total.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ImportProgress } from '../../shared/domain.js';
import { engineFor, jobsDigest, tableCounts, type TestEngine } from '../helpers/engine.js';
import { twoStageList } from '../helpers/shot-lists.js';
import { forEachStore, type StoreKind } from '../helpers/test-store.js';

/** A trigger that refuses one job's creation event: the write fails after every job row is in. */
function refuseEventOf(t: TestEngine, kind: StoreKind, jobId: string): void {
  if (kind === 'sqlite') {
    t.engine.db.exec(
      `CREATE TRIGGER refuse_one BEFORE INSERT ON job_events WHEN NEW.job_id = '${jobId}' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
    );
  } else {
    t.engine.db.exec(`CREATE FUNCTION refuse_one() RETURNS trigger LANGUAGE plpgsql AS $f$
      BEGIN IF NEW.job_id = '${jobId}' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $f$;
      CREATE TRIGGER refuse_one BEFORE INSERT ON job_events FOR EACH ROW EXECUTE FUNCTION refuse_one()`);
  }
}

forEachStore((store) => {
  if (store === 'postgres')
    test("after an import of 10,000 jobs PostgreSQL's planner knows how big the jobs table is, from a small sample, on postgres", async (ctx) => {
      const t = await engineFor(ctx, { store });
      const preview = await t.engine.call('import.preview', { fileName: 'big.json', content: twoStageList(5_000) });
      await t.engine.call('import.commit', { previewId: preview.previewId });
      // Without the refresh the planner's figure is the empty table's until autovacuum comes round.
      const { n } = t.engine.db.one("SELECT reltuples AS n FROM pg_class WHERE relname = 'jobs'") as { n: number };
      assert.ok(n >= 10_000, `the planner takes jobs for ${n} rows`);
      // Measured from a small sample (refreshPlannerStats): 300 × 10 rows, not the server's 30,000.
      const sampled = t.engine.db.one<{ n: number }>(
        "SELECT array_length(histogram_bounds::text::text[], 1) AS n FROM pg_stats WHERE tablename = 'jobs' AND attname = 'id'",
      );
      assert.equal(sampled?.n, 11, "a 10-bucket histogram: the import's own statistics target");
      // Only for that statement: the session's setting is the server's again.
      const target = t.engine.db.one<{ t: string }>("SELECT current_setting('default_statistics_target') AS t");
      assert.equal(target?.t, '100');
    });

  test(`a write that fails deep inside a big import leaves the store unchanged on ${store}`, {
    timeout: 280_000,
  }, async (ctx) => {
    const t = await engineFor(ctx, { store });
    // Something stored before, which the failed import must not touch either.
    const small = await t.engine.call('import.preview', {
      fileName: 'small.json',
      content: twoStageList(5, { prefix: 'pre' }),
    });
    await t.engine.call('import.commit', { previewId: small.previewId });
    const preview = await t.engine.call('import.preview', { fileName: 'big.json', content: twoStageList(20_000) });
    assert.equal(preview.counts.new, 40_000);
    // The last row's event: every job row and every other event of the import is written by then.
    const last = preview.rows[preview.rows.length - 1]?.jobId;
    assert.ok(last);
    refuseEventOf(t, store, last);
    const counts = tableCounts(t.engine);
    const digest = jobsDigest(t.engine);
    await assert.rejects(t.engine.call('import.commit', { previewId: preview.previewId }), /refused by the test/);
    assert.deepEqual(tableCounts(t.engine), counts);
    assert.equal(jobsDigest(t.engine), digest);
  });
});

test('the preview and the commit report their progress in order, ending at the total, to the caller that asked', async (ctx) => {
  const t = await engineFor(ctx);
  // Ten rows stored before: the second import finds them as duplicates.
  const first = await t.engine.call('import.preview', { fileName: 'a.json', content: twoStageList(5) });
  await t.engine.call('import.commit', { previewId: first.previewId });
  const seen: ImportProgress[] = [];
  t.engine.events.on('import.progress', (p) => void seen.push(p));

  // 6,000 shots: 12,000 rows, of which the keyframes of every 1000th shot name no template (6 errors,
  // and their 6 motion clips, which wait for them, too).
  const preview = await t.engine.call('import.preview', {
    fileName: 'b.json',
    content: twoStageList(6_000, { badTemplateEvery: 1000 }),
    progressId: 'check-1',
  });
  assert.deepEqual(preview.counts, { new: 12_000 - 10 - 12, duplicate: 10, error: 12 });
  const checks = seen.splice(0);
  assert.ok(checks.every((p) => p.progressId === 'check-1' && p.total === 12_000));
  assert.deepEqual(
    checks.map((p) => [p.phase, p.done]),
    [
      ['checking', 5_000],
      ['checking', 10_000],
      ['checking', 12_000],
      ['done', 12_000],
    ],
  );
  for (const p of checks) assert.equal(p.counts.new + p.counts.duplicate + p.counts.error, p.done);
  // The end is the preview's own counts (a motion clip waiting for a row with errors is one too).
  assert.deepEqual(checks[checks.length - 1]?.counts, preview.counts);

  const result = await t.engine.call('import.commit', { previewId: preview.previewId, progressId: 'commit-1' });
  assert.deepEqual(
    seen.map((p) => [p.progressId, p.phase, p.done, p.total]),
    [
      ['commit-1', 'writing', 0, 12_000],
      ['commit-1', 'done', 12_000, 12_000],
    ],
  );
  assert.deepEqual(seen[1]?.counts, { new: result.imported, duplicate: 10, error: 12 });

  // Without a progressId nobody asked: nothing is sent.
  seen.length = 0;
  const quiet = await t.engine.call('import.preview', {
    fileName: 'c.json',
    content: twoStageList(3, { prefix: 'q' }),
  });
  await t.engine.call('import.commit', { previewId: quiet.previewId });
  assert.deepEqual(seen, []);
});
