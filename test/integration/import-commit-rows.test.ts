/**
 * What an import's commit writes for its rows, on both stores: each job's shot is the shot its row
 * names — rows of several projects and episodes mixed in one file, shot codes repeated across
 * episodes, shots stored by an earlier import — and the creation events go in job id order (so
 * their index and foreign key walk the b-trees in order; store order of one import's events is not
 * the file's).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engineFor, type TestEngine } from '../helpers/engine.js';
import { forEachStore } from '../helpers/test-store.js';

async function commit(t: TestEngine, fileName: string, content: string) {
  const preview = await t.engine.call('import.preview', { fileName, content });
  assert.equal(preview.counts.error, 0, JSON.stringify(preview.rows.find((r) => r.status === 'error')));
  return t.engine.call('import.commit', { previewId: preview.previewId });
}

function jsonList(episode: string, codes: string[]): string {
  return JSON.stringify({
    project: 'Mixed',
    episode,
    shots: codes.map((id) => ({ id, stage: 'keyframe', template: 'keyframe-img2img', parameters: { prompt: id } })),
  });
}

forEachStore((store) => {
  test(`each imported job belongs to the shot its row names, across projects and episodes in one file, on ${store}`, {
    timeout: 120_000,
  }, async (ctx) => {
    const t = await engineFor(ctx, { store });
    // Stored before: sh1 and sh2 of Mixed/ep1.
    await commit(t, 'first.json', jsonList('ep1', ['sh1', 'sh2']));
    // Rows switch project and episode from one row to the next, repeat codes across episodes, and
    // name stored shots beside new ones.
    const rows = [
      ['Mixed', 'ep1', 'sh1'],
      ['Mixed', 'ep2', 'sh1'],
      ['Mixed', 'ep1', 'sh3'],
      ['Other', 'ep1', 'sh1'],
      ['Mixed', 'ep2', 'sh2'],
      ['Mixed', 'ep1', 'sh2'],
      ['Other', 'ep1', 'sh3'],
      ['Mixed', 'ep2', 'sh3'],
    ];
    const csv = [
      'project,episode,shot,stage,template,prompt',
      ...rows.map(([p, e, s]) => `${p},${e},${s},layout,keyframe-img2img,${p} ${e} ${s}`),
    ].join('\n');
    const result = await commit(t, 'mixed.csv', csv);
    assert.equal(result.imported, rows.length);
    const jobs = t.engine.db.all(
      `SELECT j.project, j.episode, j.shot, p.name AS shot_project, e.name AS shot_episode, s.code AS shot_code
       FROM jobs j JOIN shots s ON s.id = j.shot_id JOIN episodes e ON e.id = s.episode_id JOIN projects p ON p.id = e.project_id`,
    ) as Record<string, string>[];
    assert.equal(jobs.length, rows.length + 2);
    for (const j of jobs)
      assert.deepEqual(
        [j.shot_project, j.shot_episode, j.shot_code],
        [j.project, j.episode, j.shot],
        `${j.project}/${j.episode}/${j.shot}`,
      );
    // One shot row per name: the stored ones were reused, not written again.
    const shots = t.engine.db.one('SELECT COUNT(*) AS n FROM shots') as { n: number };
    assert.equal(Number(shots.n), 8);
  });

  test(`an import's creation events are stored in job id order, not the file's, on ${store}`, {
    timeout: 120_000,
  }, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const codes = Array.from({ length: 300 }, (_, i) => `sh${String(i).padStart(3, '0')}`);
    const result = await commit(t, 'order.json', jsonList('ep1', codes));
    assert.equal(result.imported, codes.length);
    // The ids in the file's order are not already sorted (else this test could not fail).
    assert.notDeepEqual(result.jobIds, [...result.jobIds].sort());
    const events = (
      t.engine.db.all('SELECT job_id, to_state FROM job_events ORDER BY id') as {
        job_id: string;
        to_state: string;
      }[]
    ).map((e) => e.job_id);
    assert.deepEqual(events, [...result.jobIds].sort());
  });

  test(`rows another import stored between a preview and its commit count as duplicates, with no second event, on ${store}`, {
    timeout: 120_000,
  }, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const codes = Array.from({ length: 40 }, (_, i) => `sh${String(i).padStart(2, '0')}`);
    const preview = await t.engine.call('import.preview', { fileName: 'late.json', content: jsonList('ep1', codes) });
    assert.equal(preview.counts.new, 40);
    // Meanwhile every third shot is imported by another list.
    const early = await commit(
      t,
      'early.json',
      jsonList(
        'ep1',
        codes.filter((_, i) => i % 3 === 0),
      ),
    );
    assert.equal(early.imported, 14);
    const late = await t.engine.call('import.commit', { previewId: preview.previewId });
    assert.deepEqual([late.imported, late.duplicates], [26, 14]);
    assert.equal(new Set([...late.jobIds, ...early.jobIds]).size, 40, 'the ids written are those not stored before');
    const events = t.engine.db.all('SELECT job_id, COUNT(*) AS n FROM job_events GROUP BY job_id') as {
      job_id: string;
      n: number;
    }[];
    assert.equal(events.length, 40);
    assert.ok(
      events.every((e) => Number(e.n) === 1),
      'one creation event per job',
    );
  });
});
