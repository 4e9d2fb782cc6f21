import { test } from 'node:test';
import assert from 'node:assert/strict';
import { transitionJob } from '../../electron/engine/job-state.js';
import { ShotfarmError } from '../../shared/errors.js';
import { engineFor, importText, tableCounts } from '../helpers/engine.js';
import { readFileSync } from 'node:fs';
import { RESOURCES } from '../helpers/engine.js';
import { forEachStore } from '../helpers/test-store.js';

const sample = readFileSync(`${RESOURCES}samples/shot_list.json`, 'utf8');

function events(db: import('../../electron/engine/store/sql-db.js').SqlDb, jobId: string) {
  return db.all('SELECT from_state, to_state, reason, actor FROM job_events WHERE job_id = ? ORDER BY id', jobId) as {
    from_state: string | null;
    to_state: string;
    reason: string;
    actor: string;
  }[];
}

forEachStore((store) => {
  test(`a state change and its event row are written together on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const { result } = await importText(t.engine, 'shot_list.json', sample);
    const id = result.jobIds[0] as string;
    t.clock.advance(1000);
    transitionJob(t.engine.db, t.clock, {
      jobId: id,
      to: 'held',
      reason: 'for review',
      actor: 'operator',
      expectFrom: ['queued'],
    });
    const job = await t.engine.call('jobs.get', { id });
    assert.equal(job.state, 'held');
    const ev = events(t.engine.db, id);
    assert.deepEqual(ev.at(-1), { from_state: 'queued', to_state: 'held', reason: 'for review', actor: 'operator' });
    assert.equal(ev[0]?.from_state, null, 'the first event records the creation');
  });

  test(`an illegal transition throws and changes nothing on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const { result } = await importText(t.engine, 'shot_list.json', sample);
    const id = result.jobIds[0] as string;
    const before = tableCounts(t.engine);
    const jobBefore = await t.engine.call('jobs.get', { id });
    assert.throws(
      () => transitionJob(t.engine.db, t.clock, { jobId: id, to: 'completed', reason: 'bogus', actor: 'test' }),
      (err: unknown) =>
        err instanceof ShotfarmError &&
        err.code === 'conflict' &&
        /queued job cannot become completed/.test(err.message),
    );
    assert.deepEqual(tableCounts(t.engine), before);
    assert.deepEqual(await t.engine.call('jobs.get', { id }), jobBefore);
  });

  test(`a report from an attempt that is no longer current is refused (fencing) on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const { result } = await importText(t.engine, 'shot_list.json', sample);
    const id = result.jobIds[0] as string;
    const before = tableCounts(t.engine);
    assert.throws(
      () =>
        transitionJob(t.engine.db, t.clock, {
          jobId: id,
          to: 'held',
          reason: 'late',
          actor: 'runner',
          expectAttemptId: 'old-attempt',
        }),
      /stale/,
    );
    assert.deepEqual(tableCounts(t.engine), before);
  });

  test(`a transition inside a failing transaction is rolled back with its event on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const { result } = await importText(t.engine, 'shot_list.json', sample);
    const id = result.jobIds[0] as string;
    const before = tableCounts(t.engine);
    assert.throws(() =>
      t.engine.db.transaction(() => {
        transitionJob(t.engine.db, t.clock, { jobId: id, to: 'held', reason: 'x', actor: 'test' });
        throw new Error('crash after the update');
      }),
    );
    assert.equal((await t.engine.call('jobs.get', { id })).state, 'queued');
    assert.deepEqual(tableCounts(t.engine), before);
  });
});
