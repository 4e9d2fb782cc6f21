import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ComfyClient } from '../../electron/engine/comfy/client.js';
import { executedCount, farmFor, FIXTURE_TEMPLATES, receivedCount } from '../helpers/farm.js';
import { waitUntil } from '../helpers/wait.js';
import { forEachStore } from '../helpers/test-store.js';

forEachStore((store) => {
  test(`an engine restarted mid-prompt follows the same prompt by its WebSocket and collects it once (closing the app is not an incident) on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, { store, instances: [{ duration: { fixedMs: 1500 } }] });
    const [id] = await farm.importJobs([{ id: 'long' }]);
    await farm.waitFor('the prompt to run on the server', () => farm.sims[0]!.counts(id!).received === 1);
    // Polling once a minute: the end, well inside it, can only be noticed from the recovered attempt's socket.
    await farm.restartEngine({ historyPollMs: 60_000 });
    const [v] = await farm.waitForStates([id!], ['completed'], 20_000);
    assert.equal(v?.attempts, 1);
    assert.equal(receivedCount(farm, id!), 1, 'not posted again');
    assert.equal(executedCount(farm, id!), 1);
    const assets = farm.engine.db.one('SELECT COUNT(*) AS n FROM assets WHERE job_id = ?', id!) as { n: number };
    assert.equal(assets.n, 1);
  });

  test(`a prompt that finished while Shotfarm was closed is collected at the next start, not rendered again on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, { store, instances: [{ duration: { fixedMs: 400 } }] });
    const [id] = await farm.importJobs([{ id: 'done-while-away' }]);
    await farm.waitFor('the prompt to run', () => farm.sims[0]!.counts(id!).received === 1);
    await farm.engine.close();
    // The engine is closed, so wait on the simulator itself.
    await waitUntil(() => farm.sims[0]!.counts(id!).executed === 1, {
      what: 'the prompt to finish on the server',
      timeoutMs: 10_000,
    });
    await farm.restartEngine();
    const [v] = await farm.waitForStates([id!], ['completed']);
    assert.equal(v?.attempts, 1);
    assert.equal(receivedCount(farm, id!), 1);
  });

  test(`an attempt claimed but never posted (the engine died in between) is requeued without counting on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, { store, instances: [{}], start: false });
    const [id] = await farm.importJobs([{ id: 'claimed' }]);
    const inst = (await farm.engine.call('instances.list', {}))[0]!;
    const db = farm.engine.db;
    const now = Date.now();
    db.run(
      `INSERT INTO attempts (id, job_id, n, instance_id, instance_name, state, queued_at, dispatched_at) VALUES ('att-x', ?, 1, ?, 'sim-0', 'claimed', ?, ?)`,
      id,
      inst.id,
      now,
      now,
    );
    db.run(
      `UPDATE jobs SET state = 'running', attempts = 1, current_attempt_id = 'att-x', instance_id = ? WHERE id = ?`,
      inst.id,
      id,
    );
    await farm.restartEngine();
    const [v] = await farm.waitForStates([id!], ['completed']);
    const att = farm.engine.db.all('SELECT n, outcome FROM attempts WHERE job_id = ? ORDER BY n', id!) as {
      n: number;
      outcome: string;
    }[];
    assert.deepEqual(att, [
      { n: 1, outcome: 'requeued' },
      { n: 2, outcome: 'completed' },
    ]);
    assert.equal(v?.attempts, 1, 'the never-posted claim did not use up an attempt');
    assert.equal(receivedCount(farm, id!), 1);
  });

  test(`a run this take already finished on the server (report lost) is collected instead of rendered again on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, { store, instances: [{}], start: false });
    const [id] = await farm.importJobs([{ id: 'catchup' }]);
    // An earlier attempt of this job rendered on the server, but its result never reached the store.
    const workflow = JSON.parse(readFileSync(join(FIXTURE_TEMPLATES, 'txt2img.json'), 'utf8')).workflow;
    const client = new ComfyClient(farm.sims[0]!.url);
    const posted = await client.postPrompt({
      prompt: workflow,
      promptId: id!,
      clientId: 'old-client',
      extraData: { shotfarm_attempt: 'lost-attempt', shotfarm_job: id },
    });
    assert.equal(posted.ok, true);
    await waitUntil(() => client.getHistory(id!), {
      what: 'the history entry of the earlier render',
      timeoutMs: 10_000,
    });
    // …and the store remembers that attempt on this workstation (claims are written before sending).
    const inst = (await farm.engine.call('instances.list', {}))[0]!;
    farm.engine.db.run(
      `INSERT INTO attempts (id, job_id, n, instance_id, instance_name, state, outcome, reason, queued_at, dispatched_at, finished_at)
    VALUES ('lost-attempt', ?, 1, ?, 'sim-0', 'ended', 'lost', 'lost contact with sim-0 for 60 s', 0, 0, 0)`,
      id,
      inst.id,
    );
    farm.startScheduler();
    const [v] = await farm.waitForStates([id!], ['completed']);
    assert.equal(v?.state, 'completed');
    assert.equal(receivedCount(farm, id!), 1, 'collected, not posted again');
  });

  test(`a workstation that crashes mid-prompt and comes back: the job is retried and rendered once on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, { store, instances: [{ duration: { fixedMs: 800 } }] });
    const [id] = await farm.importJobs([{ id: 'crashy' }]);
    await farm.waitFor('the prompt to run', () => farm.sims[0]!.counts(id!).received === 1);
    await farm.sims[0]!.crash();
    // Down long enough for the farm to notice, and not a moment longer.
    await farm.waitFor('the farm to see sim-0 down', async () => {
      const [inst] = await farm.engine.call('instances.list', {});
      return inst?.health === 'unhealthy' || inst?.health === 'offline';
    });
    await farm.sims[0]!.restart();
    const [v] = await farm.waitForStates([id!], ['completed'], 30_000);
    assert.ok((v?.attempts ?? 0) >= 2);
    assert.equal(executedCount(farm, id!), 1);
  });

  test(`a partitioned workstation loses its attempt after the grace time and the job runs elsewhere on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, {
      store,
      instances: [{ duration: { fixedMs: 5000 } }, { duration: { fixedMs: 50 } }],
      config: { graceMs: 1500 },
    });
    // Keep sim-1 out until sim-0 has the job.
    await farm.engine.call('instances.setAdminState', { id: 'sim-1', adminState: 'disabled' });
    const [id] = await farm.importJobs([{ id: 'part' }]);
    await farm.waitFor('the prompt on sim-0', () => farm.sims[0]!.counts(id!).received === 1);
    farm.sims[0]!.partition(true);
    await farm.engine.call('instances.setAdminState', { id: 'sim-1', adminState: 'active' });
    const [v] = await farm.waitForStates([id!], ['completed'], 30_000);
    assert.equal(v?.attempts, 2);
    const att = farm.engine.db.all('SELECT instance_name, reason FROM attempts WHERE job_id = ? ORDER BY n', id!) as {
      instance_name: string;
      reason: string | null;
    }[];
    assert.equal(att[0]?.instance_name, 'sim-0');
    assert.match(att[0]?.reason ?? '', /lost contact with sim-0|did not answer/);
    assert.equal(att[1]?.instance_name, 'sim-1');
    farm.sims[0]!.partition(false);
  });

  test(`a server that restarts right after taking a prompt loses it; the job is retried and rendered once on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, { store, instances: [{ script: ['restart'] }] });
    const ids = await farm.importJobs([{ id: 'r1' }, { id: 'r2' }]);
    await farm.waitForStates(ids, ['completed'], 30_000);
    for (const id of ids) assert.equal(executedCount(farm, id), 1);
  });
});
