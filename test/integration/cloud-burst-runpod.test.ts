/**
 * Cloud burst on the RunPod simulator over loopback (issue 18): a job renders through /run →
 * /status → outputs → ledger with its cost; cancel and stop farm send /cancel for our ids; 401,
 * 429 with Retry-After, 5xx, TIMED_OUT and a validation failure each end in their class; the budget
 * stops bursting; the run log's costs add up; the API key is in no log, event, export or answer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { attemptsOfJob } from '../../electron/engine/store/attempt-store.js';
import { cloudFarmFor, SIM_KEY } from '../helpers/cloud-farm.js';
import { forEachStore } from '../helpers/test-store.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

forEachStore((store) => {
  test(`a job renders on the RunPod endpoint: /run once, /status, real PNG outputs in the ledger, its cost in the run log; the key appears nowhere on ${store}`, async (t) => {
    const { farm, sim } = await cloudFarmFor(t, { store, sim: { coldStartMs: 60 } });
    const events: string[] = [];
    farm.engine.events.on('job.changed', (e) => events.push(JSON.stringify(e)));
    farm.engine.events.on('instance.changed', (e) => events.push(JSON.stringify(e)));
    const [id] = await farm.importJobs([{ id: 'sh010' }]);
    const [job] = await farm.waitForStates([id as string], ['completed'], 20_000);
    assert.equal(job?.state, 'completed');
    assert.equal(sim.runCalls(), 1);
    const assets = await farm.engine.call('assets.list', {});
    assert.equal(assets.rows.length >= 1, true);
    for (const a of assets.rows) {
      const path = a.path;
      assert.ok(existsSync(path), `${path} exists`);
      assert.deepEqual(readFileSync(path).subarray(0, 4), PNG);
    }
    const [attempt] = attemptsOfJob(farm.engine.db, id as string);
    assert.ok(attempt?.runpod_job_id, 'the RunPod id is stored');
    assert.ok((attempt?.billed_s ?? 0) >= 1 && (attempt?.cost_usd ?? 0) > 0, 'billed and costed');
    assert.equal(attempt?.cost_usd, Math.round((((attempt?.billed_s ?? 0) * 3.6) / 3600) * 1e6) / 1e6);

    const out = join(farm.dir, 'runlog.csv');
    await farm.engine.call('export.runlog', { path: out });
    const csv = readFileSync(out, 'utf8');
    const lines = csv.trim().split(/\r?\n/);
    const header = lines[0]?.split(',') ?? [];
    assert.equal(header.at(-1), 'cost_usd');
    const costs = lines.slice(1).map((l) => Number(l.split(',').at(-1) || 0));
    const spend = await farm.engine.call('cloud.spend', {});
    assert.ok(
      Math.abs(costs.reduce((a, b) => a + b, 0) - spend.totalUsd) < 1e-6,
      "run-log costs add up to today's spend",
    );
    assert.equal(spend.byProjectEpisode[0]?.project, 'P');
    assert.equal(spend.keySource, 'stored');

    const answers = JSON.stringify([
      await farm.engine.call('instances.list', {}),
      spend,
      await farm.engine.call('jobs.get', { id: id as string }),
      await farm.engine.call('settings.list', {}),
    ]);
    const dbRows =
      JSON.stringify(farm.engine.db.all('SELECT * FROM job_events')) +
      JSON.stringify(farm.engine.db.all('SELECT * FROM attempts'));
    const settingRows = JSON.stringify(farm.engine.db.all('SELECT * FROM settings'));
    for (const [what, text] of [
      ['API answers', answers],
      ['event rows and attempts', dbRows],
      ['events', events.join('\n')],
      ['run log', csv],
      ['settings rows (encrypted)', settingRows],
    ] as const) {
      assert.ok(!text.includes(SIM_KEY), `the key is not in the ${what}`);
    }
    const cards = await farm.engine.call('instances.list', {});
    assert.equal(cards[0]?.cloud?.kind, 'runpod');
  });

  test(`cancel and stop farm send /cancel for our RunPod jobs, and nothing of ours is left queued or running there on ${store}`, async (t) => {
    const { farm, sim } = await cloudFarmFor(t, {
      store,
      sim: { coldStartMs: 5_000, workers: 2 },
      farm: { config: { runpodPollMs: 40 } },
    });
    await farm.engine.call('settings.set', { key: 'prefetch', value: 0 });
    const ids = await farm.importJobs([{ id: 'a' }]);
    await farm.waitFor(
      'the RunPod id stored',
      () => attemptsOfJob(farm.engine.db, ids[0] as string)[0]?.runpod_job_id != null,
    );
    await farm.engine.call('jobs.cancel', { ids: [ids[0] as string] });
    await farm.waitFor('/cancel sent', () => sim.cancelled().length === 1);
    const rpId = attemptsOfJob(farm.engine.db, ids[0] as string)[0]?.runpod_job_id;
    assert.deepEqual(sim.cancelled(), [rpId]);

    const more = await farm.importJobs([{ id: 'b' }]);
    await farm.waitFor('b posted', () => attemptsOfJob(farm.engine.db, more[0] as string)[0]?.runpod_job_id != null);
    await farm.engine.call('farm.stop', { by: 'test' });
    await farm.waitFor('/cancel for b', () => sim.cancelled().length === 2);
    const [b] = await farm.waitForStates([more[0] as string], ['queued']);
    assert.equal(b?.state, 'queued');
    const reasons = attemptsOfJob(farm.engine.db, more[0] as string).map((a) => a.reason ?? '');
    assert.ok(
      reasons.some((r) => r.includes('/cancel sent to RunPod')),
      reasons.join(' | '),
    );
    assert.ok(
      sim.jobs().every((j) => j.status !== 'IN_QUEUE' && j.status !== 'IN_PROGRESS'),
      JSON.stringify(sim.jobs()),
    );
  });

  test(`failure classes: 429 with Retry-After and 5xx are transient, TIMED_OUT is a timeout, a validation failure is permanent on ${store}`, async (t) => {
    // The execution timeout is the endpoint's, for every job: long enough that a normal render on a
    // loaded machine ends before it (at 300 ms the 'rate' job timed out at load 10), short enough
    // that the scripted 'timeout' job below is ended by it quickly.
    const { farm, sim } = await cloudFarmFor(t, { store, sim: { executionTimeoutMs: 2_000, workers: 3 } });
    // 429 with Retry-After on /status: asked again after it, the job still completes in its first attempt.
    sim.failNext('status', 429, 2, 0.05);
    const [ok] = await farm.importJobs([{ id: 'rate' }]);
    await farm.waitForStates([ok as string], ['completed']);
    const rated = attemptsOfJob(farm.engine.db, ok as string);
    assert.equal(rated.length, 1, `one attempt, got ${JSON.stringify(rated)}`);

    // 5xx on /run: a transient failure, retried, then completed.
    sim.failNext('run', 503, 1);
    const [five] = await farm.importJobs([{ id: 'five' }]);
    await farm.waitForStates([five as string], ['completed']);
    assert.equal(attemptsOfJob(farm.engine.db, five as string)[0]?.error_class, 'transient');

    sim.setScript(['invalid']);
    const [bad] = await farm.importJobs([{ id: 'bad' }]);
    const [badView] = await farm.waitForStates([bad as string], ['failed_final']);
    assert.equal(badView?.errorClass, 'permanent');
    assert.match(badView?.stateReason ?? '', /validation failed/i);

    // TIMED_OUT: the timeout class; the retry (an 'ok' run) completes.
    sim.setScript(['timeout']);
    const [slow] = await farm.importJobs([{ id: 'slow' }]);
    await farm.waitForStates([slow as string], ['completed']);
    assert.equal(attemptsOfJob(farm.engine.db, slow as string)[0]?.error_class, 'timeout');
  });

  test(`401: the endpoint goes unhealthy with "API key rejected" and the job is not failed for it on ${store}`, async (t) => {
    const { farm, sim } = await cloudFarmFor(t, { store, key: 'rp_wrong_key_000' });
    const [id] = await farm.importJobs([{ id: 'k' }]);
    await farm.waitFor(
      'API key rejected, the job back in the queue',
      async () =>
        (await farm.engine.call('instances.list', {}))[0]?.lastError === 'API key rejected' &&
        (await farm.job(id as string)).state === 'queued',
    );
    const card = (await farm.engine.call('instances.list', {}))[0];
    assert.equal(card?.health, 'unhealthy');
    const job = await farm.job(id as string);
    assert.equal(job.state, 'queued');
    assert.equal(job.attempts, 0);
    assert.equal(sim.runCalls(), 0);
  });

  test(`the budget stops bursting at the limit, and the card says so on ${store}`, async (t) => {
    // $36/h and a cold start of ~1 s: one job costs at least $0.01; the budget is $0.01.
    const { farm, sim } = await cloudFarmFor(t, {
      store,
      budgetUsd: 0.01,
      pricePerHourUsd: 36,
      sim: { coldStartMs: 900 },
    });
    const ids = await farm.importJobs([{ id: 'b1' }, { id: 'b2' }, { id: 'b3' }]);
    await farm.waitFor('one completed', async () =>
      (await Promise.all(ids.map((i) => farm.job(i)))).some((j) => j.state === 'completed'),
    );
    await farm.waitFor('the card says the budget is spent', async () =>
      /today's cloud budget is spent/.test((await farm.engine.call('instances.list', {}))[0]?.cloud?.burstWait ?? ''),
    );
    const states = (await Promise.all(ids.map((i) => farm.job(i)))).map((j) => j.state);
    assert.equal(states.filter((s) => s === 'completed').length, 1, states.join(','));
    assert.equal(sim.runCalls(), 1);
    const spend = await farm.engine.call('cloud.spend', {});
    assert.ok(spend.totalUsd >= 0.01);
  });
});
