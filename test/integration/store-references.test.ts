/**
 * What a stored row names is stored, on both stores, by two mechanisms (migration 0024): SQLite's
 * foreign keys, and on PostgreSQL one set-based check per statement over the rows it wrote (a
 * job's shot and template, an event's job, a shot's episode) in place of a foreign-key trigger per
 * row. Both refuse a row naming what is not stored — alone or as the last of a many-row statement,
 * which then writes nothing — and both refuse deleting or renumbering an episode, shot, template or
 * job, the rule that lets PostgreSQL's check take no locks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineFor, importText, tableCounts } from '../helpers/engine.js';
import { jobCopies } from '../helpers/job-copies.js';
import { forEachStore } from '../helpers/test-store.js';

const MISSING = 999_999;

function shotList(n: number): string {
  const shots = [];
  for (let i = 0; i < n; i++) {
    shots.push({
      id: `sh${String(i).padStart(5, '0')}`,
      stages: [{ stage: 'keyframe', template: 'keyframe-img2img', parameters: { denoise: 0.4 } }],
    });
  }
  return JSON.stringify({ project: 'Refs', episode: 'ep1', shots });
}

forEachStore((kind) => {
  test(`a row naming a shot, template, job or episode that is not stored is refused, alone or last of many, on ${kind}`, {
    timeout: 120_000,
  }, async (ctx) => {
    const t = await engineFor(ctx, { store: kind });
    await importText(t.engine, 'refs.json', shotList(3));
    const db = t.engine.db;
    const job = db.one('SELECT id, shot_id, template_id FROM jobs ORDER BY id LIMIT 1') as {
      id: string;
      shot_id: number;
      template_id: number;
    };
    const episode = (db.one('SELECT id FROM episodes') as { id: number }).id;
    const before = tableCounts(t.engine);

    const refused = /foreign key/i;
    assert.throws(() => jobCopies(db, job.id, 1, { last: { shot_id: MISSING } }), refused, 'one job, its shot missing');
    assert.throws(
      () => jobCopies(db, job.id, 300, { last: { shot_id: MISSING } }),
      refused,
      '300 jobs, the last one’s shot',
    );
    assert.throws(
      () => jobCopies(db, job.id, 300, { last: { template_id: MISSING } }),
      refused,
      'the last one’s template',
    );
    assert.throws(
      () =>
        db.run(
          "INSERT INTO job_events (job_id, to_state, reason, actor, at) VALUES (?, 'queued', 'x', 'local', 1), ('no-such-job', 'queued', 'x', 'local', 1)",
          job.id,
        ),
      refused,
      'an event for a job not stored',
    );
    assert.throws(
      () =>
        db.run(
          "INSERT INTO shots (episode_id, code, created_at) VALUES (?, 'new1', 1), (?, 'new2', 1)",
          episode,
          MISSING,
        ),
      refused,
      'a shot in an episode not stored',
    );
    assert.throws(() => db.run('UPDATE jobs SET shot_id = ? WHERE id = ?', MISSING, job.id), refused);
    assert.throws(() => db.run('UPDATE jobs SET template_id = ? WHERE id = ?', MISSING, job.id), refused);
    assert.throws(() => db.run("UPDATE job_events SET job_id = 'no-such-job'"), refused);
    assert.throws(() => db.run('UPDATE shots SET episode_id = ?', MISSING), refused);
    assert.deepEqual(tableCounts(t.engine), before, 'every refused statement wrote nothing');

    // What is stored is taken, in one row or many.
    jobCopies(db, job.id, 300);
    const other = (db.one('SELECT id FROM shots WHERE id <> ? ORDER BY id LIMIT 1', job.shot_id) as { id: number }).id;
    db.run('UPDATE jobs SET shot_id = ? WHERE id = ?', other, job.id);
    assert.equal(tableCounts(t.engine).jobs, (before.jobs ?? 0) + 300);
  });

  test(`a stored episode, shot, template or job is never deleted and keeps its id, on ${kind}`, {
    timeout: 120_000,
  }, async (ctx) => {
    const t = await engineFor(ctx, { store: kind });
    await importText(t.engine, 'refs.json', shotList(2));
    const db = t.engine.db;
    const before = tableCounts(t.engine);
    for (const [table, words] of [
      ['episodes', /an episode is never deleted/],
      ['shots', /a shot is never deleted/],
      ['templates', /a template is never deleted/],
      ['jobs', /a job is never deleted/],
    ] as const) {
      const row = db.one(`SELECT id FROM ${table} ORDER BY id LIMIT 1`) as { id: unknown };
      assert.throws(() => db.run(`DELETE FROM ${table} WHERE id = ?`, row.id), words, table);
      const renumbered = table === 'jobs' ? 'renumbered-job' : MISSING;
      assert.throws(() => db.run(`UPDATE ${table} SET id = ? WHERE id = ?`, renumbered, row.id), /id never changes/);
      if (kind === 'postgres') assert.throws(() => db.exec(`TRUNCATE ${table} CASCADE`), words, `TRUNCATE ${table}`);
    }
    assert.deepEqual(tableCounts(t.engine), before);
  });
});

forEachStore((kind) => {
  if (kind !== 'postgres') return;
  test('PostgreSQL checks an event’s job through the jobs’ primary key, never by reading every job — also a one-row event after a 2,000-row statement', {
    timeout: 120_000,
  }, async (ctx) => {
    const t = await engineFor(ctx, { store: kind });
    await importText(t.engine, 'refs.json', shotList(2_000));
    const db = t.engine.db;
    db.exec('ANALYZE jobs');
    const ids = (db.all('SELECT id FROM jobs') as { id: string }[]).map((r) => r.id);
    const scans = () =>
      db.one("SELECT seq_scan, idx_scan FROM pg_stat_xact_user_tables WHERE relname = 'jobs'") as {
        seq_scan: number;
        idx_scan: number;
      };
    const rolledBack = new Error('rolled back');
    assert.throws(
      () =>
        db.transaction(() => {
          const start = scans();
          db.run(
            "INSERT INTO job_events (job_id, to_state, reason, actor, at) SELECT id, 'queued', 'x', 'local', 1 FROM unnest(?::text[]) AS u(id)",
            [ids],
          );
          db.run(
            "INSERT INTO job_events (job_id, to_state, reason, actor, at) VALUES (?, 'queued', 'x', 'local', 2)",
            ids[0],
          );
          const end = scans();
          assert.equal(Number(end.seq_scan) - Number(start.seq_scan), 0, 'no statement read the whole jobs table');
          assert.equal(Number(end.idx_scan) - Number(start.idx_scan), ids.length + 1, 'one probe per event');
          throw rolledBack;
        }),
      (err) => err === rolledBack,
    );
  });
});
