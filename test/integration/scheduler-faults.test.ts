import { test } from 'node:test';
import { seededRandom } from '../../electron/engine/clock.js';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { executedCount, farmFor, receivedCount, startFarm, watchServerQueue } from '../helpers/farm.js';

function attemptsOf(farm: Awaited<ReturnType<typeof startFarm>>, jobId: string) {
  return farm.engine.db.all(
    'SELECT n, outcome, error_class, reason, instance_name FROM attempts WHERE job_id = ? ORDER BY n',
    jobId,
  ) as {
    n: number;
    outcome: string | null;
    error_class: string | null;
    reason: string | null;
    instance_name: string;
  }[];
}

test('a hung node is interrupted at the stall timeout, removed from the server and retried (incident 3)', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ script: ['hang'] }], config: { stallTimeoutS: 1 } });
  const [id] = await farm.importJobs([{ id: 'hung' }]);
  const [v] = await farm.waitForStates([id!], ['completed']);
  assert.equal(v?.attempts, 2);
  const att = attemptsOf(farm, id!);
  assert.equal(att[0]?.outcome, 'timeout');
  assert.match(att[0]?.reason ?? '', /no progress for 1 s/);
  assert.equal(farm.sims[0]!.counts(id!).interrupted, 1);
  assert.equal(executedCount(farm, id!), 1);
});

test('with no attempts left a hung job ends as timeout_kill and the queue moves on', async (ctx) => {
  const farm = await farmFor(ctx, {
    instances: [{ script: ['hang'] }],
    config: { stallTimeoutS: 1, retry: { maxAttempts: 1, baseMs: 10, capMs: 10 } },
  });
  const ids = await farm.importJobs([{ id: 'a' }, { id: 'b' }]);
  const views = await farm.waitForStates(ids, ['completed', 'timeout_kill']);
  assert.deepEqual(views.map((v) => v.state).sort(), ['completed', 'timeout_kill']);
  assert.match(views.find((v) => v.state === 'timeout_kill')?.stateReason ?? '', /no attempts left/);
});

test('a rush job imported behind a batch starts next (incident 4)', async (ctx) => {
  // The dispatch decision's order; with prefetch a waiting prompt gives its place (scheduler-prefetch.test.ts).
  const farm = await farmFor(ctx, { instances: [{ duration: { fixedMs: 250 } }], config: { prefetch: false } });
  const batch = await farm.importJobs([{ id: 'b1' }, { id: 'b2' }, { id: 'b3' }, { id: 'b4' }]);
  await farm.waitFor(
    'the first batch job to run',
    async () => (await farm.engine.call('jobs.list', { filter: { states: ['running'] } })).total === 1,
  );
  const [rush] = await farm.importJobs([{ id: 'fix', priority: 'rush' }]);
  await farm.waitForStates([...batch, rush!], ['completed'], 30_000);
  const order = (
    farm.engine.db.all('SELECT j.shot FROM attempts a JOIN jobs j ON j.id = a.job_id ORDER BY a.dispatched_at') as {
      shot: string;
    }[]
  ).map((r) => r.shot);
  assert.equal(order[1], 'fix', `dispatch order was ${order.join(', ')}`);
});

test('move to top makes the last queued job the next one to start', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ duration: { fixedMs: 250 } }], config: { prefetch: false } });
  const ids = await farm.importJobs([{ id: 'q1' }, { id: 'q2' }, { id: 'q3' }, { id: 'q4' }]);
  await farm.waitFor(
    'one running',
    async () => (await farm.engine.call('jobs.list', { filter: { states: ['running'] } })).total === 1,
  );
  const queued = (await farm.engine.call('jobs.list', { filter: { states: ['queued'] }, sort: 'queue' })).rows;
  const last = queued.at(-1)!;
  await farm.engine.call('jobs.moveToTop', { ids: [last.id] });
  await farm.waitForStates(ids, ['completed'], 30_000);
  const order = (farm.engine.db.all('SELECT job_id FROM attempts ORDER BY dispatched_at') as { job_id: string }[]).map(
    (r) => r.job_id,
  );
  assert.equal(order[1], last.id);
});

test('a job too big for the free GPU does not block smaller jobs behind it (no head-of-line blocking)', async (ctx) => {
  const farm = await farmFor(ctx, {
    instances: [
      { vramTotalGb: 24, duration: { fixedMs: 600 } },
      { vramTotalGb: 12, duration: { fixedMs: 30 } },
    ],
  });
  const [big1, big2] = await farm.importJobs([
    { id: 'v1', template: 'video18', stage: 'motion', priority: 'high' },
    { id: 'v2', template: 'video18', stage: 'motion', priority: 'high' },
  ]);
  const small = await farm.importJobs([{ id: 's1' }, { id: 's2' }, { id: 's3' }]);
  await farm.waitForStates(small, ['completed'], 30_000);
  const v2 = await farm.job(big2!);
  const v1 = await farm.job(big1!);
  assert.ok(
    [v1.state, v2.state].includes('queued') || [v1.state, v2.state].includes('running'),
    'one big job still waits for the 24 GB GPU',
  );
  for (const id of small)
    assert.equal(farm.sims[0]!.counts(id).received, 0, 'small jobs ran on the 12 GB GPU while the big one waited');
  await farm.waitForStates([big1!, big2!], ['completed'], 30_000);
  for (const id of [big1!, big2!])
    assert.equal(farm.sims[1]!.counts(id).received, 0, 'an 18 GB job never went to the 12 GB GPU');
});

test('two 18 GB jobs are never sent to one 24 GB workstation at once (incident 5)', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ vramTotalGb: 24, duration: { fixedMs: 300 } }], config: {} });
  await farm.engine.call('instances.update', { id: 'sim-0', name: 'sim-0', url: farm.sims[0]!.url, maxConcurrency: 2 });
  const ids = await farm.importJobs([
    { id: 'v1', template: 'video18', stage: 'motion' },
    { id: 'v2', template: 'video18', stage: 'motion' },
  ]);
  const watch = watchServerQueue(farm.sims[0]!);
  await farm.waitForStates(ids, ['completed'], 30_000);
  assert.equal(await watch.stop(), 1, 'the server never held two of them at once');
  for (const id of ids) assert.equal(executedCount(farm, id), 1);
});

test('cancelling a running job interrupts its prompt on the server; the job stays cancelled', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ script: ['hang'] }] });
  const [id] = await farm.importJobs([{ id: 'c' }]);
  await farm.waitFor('the prompt to be running on the server', () => farm.sims[0]!.counts(id!).received === 1);
  await farm.waitForStates([id!], ['running']);
  await farm.engine.call('jobs.cancel', { ids: [id!] });
  await farm.waitFor('the server to be interrupted', () => farm.sims[0]!.counts(id!).interrupted === 1);
  await farm.waitFor('the attempt to close', () => attemptsOf(farm, id!)[0]?.outcome === 'cancelled');
  const v = await farm.job(id!);
  assert.equal(v.state, 'cancelled');
  assert.equal(receivedCount(farm, id!), 1, 'not retried');
});

test('stop farm interrupts and removes running prompts and puts their jobs back in the queue', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ script: ['hang'] }] });
  const [id] = await farm.importJobs([{ id: 'stopme' }]);
  await farm.waitFor('running on the server', () => farm.sims[0]!.counts(id!).received === 1);
  const status = await farm.engine.call('farm.stop', {});
  assert.equal(status.dispatching, false);
  const v = await farm.job(id!);
  assert.equal(v.state, 'queued');
  assert.equal(v.attempts, 0, 'an attempt stopped by the operator does not count');
  assert.equal(farm.sims[0]!.counts(id!).interrupted, 1);
  await farm.engine.call('farm.resume', {});
  await farm.waitForStates([id!], ['completed']);
});

test('an interrupt nobody in Shotfarm asked for (Cancel in the ComfyUI page) is retried', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ script: ['hang'] }], config: { stallTimeoutS: 30 } });
  const [id] = await farm.importJobs([{ id: 'x' }]);
  await farm.waitFor('running on the server', () => farm.sims[0]!.counts(id!).received === 1);
  await request(`${farm.sims[0]!.url}/interrupt`, { method: 'POST', body: '' }).then((r) => r.body.text());
  const [v] = await farm.waitForStates([id!], ['completed']);
  assert.equal(v?.attempts, 2);
  assert.match(attemptsOf(farm, id!)[0]?.reason ?? '', /interrupted on sim-0 by someone else/);
});

test('an instance failing again and again is quarantined and the work goes elsewhere', async (ctx) => {
  const farm = await farmFor(ctx, {
    instances: [{ script: ['500', '500', '500', '500'] }, { duration: { fixedMs: 100 } }],
    config: { quarantineAfter: 2 },
  });
  const ids = await farm.importJobs([{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'd' }]);
  await farm.waitForStates(ids, ['completed'], 30_000);
  const instances = await farm.engine.call('instances.list', {});
  const sim0 = instances.find((i) => i.name === 'sim-0')!;
  assert.equal(sim0.health, 'quarantined');
  assert.ok(sim0.quarantinedUntil !== null);
  for (const id of ids) assert.equal(executedCount(farm, id), 1);
});

test('each GPU keeps its model across an import: an attempt collected after the next dispatch does not reset it', async () => {
  // The slot is freed before outputs are downloaded, so job n's collection ends after job n+1 was
  // sent. Its end must not put job n's model back as "loaded there", or the next choice is wrong.
  const farm = await startFarm({
    instances: [0, 1, 2, 3].map((i) => ({
      duration: { fixedMs: 20, randomMs: [0, 60] as [number, number], seed: i, modelLoadMs: 30 },
    })),
  });
  try {
    const A = 'sd_xl_base_1.0.safetensors';
    const B = 'sd15/v1-5-pruned-emaonly.safetensors';
    const rnd = seededRandom(5);
    const shots = Array.from({ length: 80 }, (_, i) => ({ id: `mix${i}`, parameters: { ckpt: rnd() < 0.5 ? A : B } }));
    const ids = await farm.importJobs(shots);
    await farm.waitForStates(ids, ['completed']);
    const ckptOf = new Map(ids.map((id, i) => [id, shots[i]!.parameters.ckpt === A ? 'A' : 'B']));
    const rows = farm.engine.db.all('SELECT job_id, instance_id FROM attempts ORDER BY dispatched_at, rowid') as {
      job_id: string;
      instance_id: string;
    }[];
    const perGpu = new Map<string, string>();
    for (const r of rows) perGpu.set(r.instance_id, (perGpu.get(r.instance_id) ?? '') + ckptOf.get(r.job_id));
    // Near-ideal: each GPU stays on one model and switches only when the jobs of its model near
    // the head of the queue run out — about 5 times over the four GPUs, also with four copies of
    // this test at once; believing stale models switched 27 times. The bound sits between (GPUs
    // freeing in one pass were once matched against the set of warm models, 14 switches under load).
    const switches = [...perGpu.values()].reduce(
      (n, seq) => n + [...seq].filter((c, i) => i > 0 && c !== seq[i - 1]).length,
      0,
    );
    assert.ok(switches <= 13, `model switches per GPU: ${[...perGpu.values()].join(' | ')}`);
  } finally {
    await farm.close();
  }
});

test('among jobs tied in the queue, the one whose checkpoint the free GPU holds goes first (no model reload)', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ duration: { fixedMs: 30 } }] });
  const A = 'sd_xl_base_1.0.safetensors';
  const B = 'sd15/v1-5-pruned-emaonly.safetensors';
  const [warm] = await farm.importJobs([{ id: 'warm', parameters: { ckpt: A } }]);
  await farm.waitForStates([warm!], ['completed']);
  // One import: both jobs tie on priority, rank and enqueue time; the B job comes first in the file.
  const [b, a] = await farm.importJobs([
    { id: 'needs-b', parameters: { ckpt: B } },
    { id: 'needs-a', parameters: { ckpt: A } },
  ]);
  await farm.waitForStates([a!, b!], ['completed']);
  const order = (
    farm.engine.db.all('SELECT job_id FROM attempts ORDER BY dispatched_at, rowid') as { job_id: string }[]
  ).map((r) => r.job_id);
  assert.deepEqual(order, [warm, a, b]);
});
