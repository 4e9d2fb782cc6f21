/**
 * The farm's own job changes (claims, starts, ends) with nobody listening — a headless engine, no
 * client, no CLI printing them — build a view only where the engine reads one: a finished job for
 * its hooks, a job back in the queue for the blocked-jobs keeper. With a listener, every change
 * is announced with its view as before. Real SQLite, a real simulator on loopback.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JobAnnouncer } from '../../electron/engine/announcer.js';
import type { Engine } from '../../electron/engine/engine.js';
import { listDeliveries } from '../../electron/engine/store/delivery-store.js';
import { startFarm, type Farm } from '../helpers/farm.js';
import { waitUntil } from '../helpers/wait.js';

const JOBS = 6;
const announcer = (engine: Engine): JobAnnouncer => (engine as unknown as { announcer: JobAnnouncer }).announcer;
const completed = (farm: Farm): number =>
  (farm.engine.db.one("SELECT COUNT(*) AS n FROM jobs WHERE state = 'completed'") as { n: number }).n;

async function runJobs(listen: boolean): Promise<{ farmViews: number; heard: string[]; deliveries: number }> {
  const farm = await startFarm({ instances: [{ duration: { fixedMs: 40 } }], start: false });
  try {
    await farm.engine.call('hooks.add', {
      hook: { id: 'done', on: ['completed'], kind: 'command', command: '/bin/true' },
    });
    const heard: string[] = [];
    const off = listen ? farm.engine.events.on('job.changed', ({ job }) => heard.push(job.state)) : () => undefined;
    const ids = await farm.importJobs(Array.from({ length: JOBS }, (_, i) => ({ id: `sh${i}` })));
    const before = announcer(farm.engine).farmViews;
    farm.startScheduler();
    const deliveries = (): number => listDeliveries(farm.engine.db, {}).filter((d) => ids.includes(d.jobId)).length;
    // Polled, not waited for through the events (a waiter would be a listener); a completion is
    // announced — its hook delivery queued — just after it is stored.
    await waitUntil(() => completed(farm) === ids.length && deliveries() === ids.length, {
      what: 'every job completed and its hook delivery queued',
      timeoutMs: 20_000,
    });
    const farmViews = announcer(farm.engine).farmViews - before;
    off();
    return { farmViews, heard, deliveries: deliveries() };
  } finally {
    await farm.close();
  }
}

test('with nobody listening, the farm builds views only for its finished jobs, and every one still reaches its hooks', async () => {
  const r = await runJobs(false);
  assert.equal(r.farmViews, JOBS, 'one view per job: its completion (claims, starts and collects build none)');
  assert.equal(r.deliveries, JOBS, 'each completed job queued its hook delivery');
});

test('with a listener, every change the farm makes is announced with its view', async () => {
  const r = await runJobs(true);
  assert.ok(r.farmViews >= 3 * JOBS, `claimed, running and completed at least: ${r.farmViews} views`);
  assert.ok(r.heard.includes('running') && r.heard.includes('completed'), r.heard.join(', '));
  assert.equal(r.deliveries, JOBS);
});

test("with nobody listening, a farm change's follower still hears a queued job and a finished one, not a running one", async () => {
  const farm = await startFarm({ instances: [{ duration: { fixedMs: 40 } }], start: false });
  try {
    const heard: string[] = [];
    // An internal follower (as the blocked-jobs keeper and the forecaster are): not an audience.
    const off = farm.engine.events.on('job.changed', ({ job }) => heard.push(job.state), { internal: true });
    const [id] = await farm.importJobs([{ id: 'sh010' }]);
    const announceAs = (state: string): void => {
      // The row as the farm's runners leave it; the announcement is what is judged.
      farm.engine.db.run('UPDATE jobs SET state = ? WHERE id = ?', state, id);
      announcer(farm.engine).announceFarm([id as string]);
    };
    heard.length = 0;
    announceAs('queued'); // put back in the queue (a requeue): the blocked-jobs keeper follows it
    announceAs('running'); // a start: nobody reads its view
    announceAs('completed'); // an end: its hooks do
    off();
    assert.deepEqual(heard, ['queued', 'completed']);
  } finally {
    await farm.close();
  }
});
