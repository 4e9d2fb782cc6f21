/**
 * SPEC §1: each incident a loop script suffers, made impossible — one test per incident, on real
 * SQLite and simulated ComfyUI servers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { executedCount, farmFor, receivedCount, watchServerQueue } from '../helpers/farm.js';
import { forEachStore } from '../helpers/test-store.js';

forEachStore((store) => {
  test(`incident 1: one OOM among 55 shots — the other 54 complete and the OOM shot is retried on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, {
      store,
      instances: [{ script: ['ok', 'ok', 'oom'], duration: { fixedMs: 5 } }, { duration: { fixedMs: 5 } }],
    });
    const ids = await farm.importJobs(
      Array.from({ length: 55 }, (_, i) => ({ id: `sh${String(i + 1).padStart(3, '0')}` })),
    );
    const views = await farm.waitForStates(ids, ['completed'], 60_000);
    assert.equal(views.length, 55);
    assert.equal(views.filter((v) => v.attempts === 2).length, 1, 'exactly one shot needed a second attempt');
    for (const id of ids) assert.equal(executedCount(farm, id), 1);
  });

  test(`incident 2: a network blip during polling never makes the server execute a prompt twice on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, {
      store,
      instances: [{ duration: { fixedMs: 2000 } }],
      config: { graceMs: 5_000 },
    });
    const [id] = await farm.importJobs([{ id: 'blip' }]);
    await farm.waitFor('the prompt to run', () => farm.sims[0]!.counts(id!).received === 1);
    farm.sims[0]!.partition(true); // polls and probes now time out…
    // A deliberate fault, not a synchronisation: the blip outlasts the probe timeout (1 s), so
    // probes and polls really fail before the network comes back.
    await new Promise((r) => setTimeout(r, 1200));
    farm.sims[0]!.partition(false); // …and the network comes back
    const [v] = await farm.waitForStates([id!], ['completed'], 30_000);
    assert.equal(v?.attempts, 1);
    assert.equal(receivedCount(farm, id!), 1);
    assert.equal(executedCount(farm, id!), 1);
  });

  test(`incident 3: a hang ends in interrupt + timeout by the configured stall timeout and the jobs behind it run on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, {
      store,
      instances: [{ script: ['hang'] }],
      config: { stallTimeoutS: 1, retry: { maxAttempts: 1, baseMs: 10, capMs: 10 } },
    });
    const ids = await farm.importJobs([{ id: 'hangs', priority: 'high' }, { id: 'b1' }, { id: 'b2' }]);
    const views = await farm.waitForStates(ids, ['completed', 'timeout_kill'], 30_000);
    const hung = views.find((v) => v.shot === 'hangs')!;
    assert.equal(hung.state, 'timeout_kill');
    // Ended by the configured stall timeout (1 s), not by the job's own 60 s limit.
    assert.match(hung.stateReason ?? '', /no progress for 1 s \(stall timeout\)/);
    assert.equal(farm.sims[0]!.counts(hung.id).interrupted, 1);
    assert.deepEqual(
      views.filter((v) => v.shot !== 'hangs').map((v) => v.state),
      ['completed', 'completed'],
    );
  });

  test(`incident 4: a rush job imported behind 200 normal ones starts on the next free GPU on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, {
      store,
      instances: [{ duration: { fixedMs: 40 } }, { duration: { fixedMs: 40 } }],
    });
    await farm.importJobs(Array.from({ length: 200 }, (_, i) => ({ id: `n${i}` })));
    await farm.waitFor(
      'the batch to be running',
      async () => (await farm.engine.call('jobs.list', { filter: { states: ['completed'] } })).total >= 4,
    );
    const [rush] = await farm.importJobs([{ id: 'client-fix', priority: 'rush' }]);
    await farm.waitForStates([rush!], ['completed'], 30_000);
    // A few jobs claimed after the rush run too, so the comparison below has something to compare.
    const completed = async () => (await farm.engine.call('jobs.list', { filter: { states: ['completed'] } })).total;
    const done = await completed();
    await farm.waitFor('four more jobs to complete', async () => (await completed()) >= done + 4);
    // "Starts on the next free GPU": the rush never waits for a whole prompt claimed after it was
    // queued — none of those ends before the rush starts. (One may start a moment before it: a
    // prompt set to wait behind a running one, which a rush never takes — it takes the first slot
    // that frees — starts by itself when its GPU frees while the rush is being posted to another.)
    // The event rows' ids are the order things happened in, on both stores.
    const db = farm.engine.db;
    const queued = (
      db.one("SELECT MIN(id) AS id FROM job_events WHERE job_id = ? AND to_state = 'queued'", rush) as { id: number }
    ).id;
    const rushStart = (
      db.one('SELECT MIN(started_at) AS t FROM attempts WHERE job_id = ? AND started_at IS NOT NULL', rush) as {
        t: number | null;
      }
    ).t;
    assert.equal(typeof rushStart, 'number', "the rush's start on the GPU is recorded");
    const endedAfter = db.all(
      `SELECT a.job_id, a.finished_at FROM job_events e JOIN attempts a ON a.id = e.attempt_id
        WHERE e.to_state = 'running' AND e.id > ? AND a.job_id <> ? AND a.outcome = 'completed'`,
      queued,
      rush,
    ) as { job_id: string; finished_at: number }[];
    assert.ok(
      endedAfter.length > 0,
      'jobs claimed after the rush completed too (the comparison has something to compare)',
    );
    assert.deepEqual(
      endedAfter.filter((a) => a.finished_at < (rushStart as number)),
      [],
      'no job claimed after the rush was queued ended before the rush started',
    );
  });

  test(`incident 5: 18 GB motion jobs never overlap on a 24 GB GPU, and a GPU with 10 GB held by others gets none on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, {
      store,
      instances: [
        { vramTotalGb: 24, duration: { fixedMs: 150 } },
        { vramTotalGb: 24, vramOtherGb: 10, duration: { fixedMs: 10 } },
      ],
    });
    await farm.engine.call('instances.update', {
      id: 'sim-0',
      name: 'sim-0',
      url: farm.sims[0]!.url,
      maxConcurrency: 2,
    });
    const ids = await farm.importJobs([1, 2, 3, 4].map((n) => ({ id: `m${n}`, template: 'video18', stage: 'motion' })));
    // The server's own queue is what reaches the GPU: it must never hold two of them at once.
    const watch = watchServerQueue(farm.sims[0]!);
    await farm.waitForStates(ids, ['completed'], 30_000);
    assert.equal(await watch.stop(), 1);
    for (const id of ids)
      assert.equal(farm.sims[1]!.counts(id).received, 0, 'the GPU with 10 GB held by others got no motion job');
  });

  test(`incident 6: a missing node or model keeps the job queued and blocked, with the reason and zero POST /prompt on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, { store, instances: [{}, {}] });
    const [node, model] = await farm.importJobs([
      { id: 'needs-node', template: 'needs-custom-node', stage: 'post' },
      { id: 'needs-lora', parameters: { ckpt: 'hero_v3.safetensors' } },
    ]);
    await farm.waitFor(
      'both jobs to be marked blocked',
      async () => (await farm.engine.call('farm.status', {})).blocked === 2,
    );
    const [n, m] = await Promise.all([farm.job(node!), farm.job(model!)]);
    assert.deepEqual([n.state, m.state], ['queued', 'queued']);
    assert.match(n.waitReason ?? '', /node `VHS_VideoCombine` is not installed on any workstation/);
    assert.match(
      m.waitReason ?? '',
      /model `hero_v3\.safetensors` \(CheckpointLoaderSimple\.ckpt_name\) is not available on any workstation/,
    );
    for (const id of [node!, model!]) assert.equal(receivedCount(farm, id), 0);
  });
});
