import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { executedCount, farmFor, FAST, receivedCount } from '../helpers/farm.js';
import { startSimInstance } from '../simulator/index.js';
import { DEFAULT_NODE_CLASSES } from '../simulator/node-catalog.js';
import { forEachStore } from '../helpers/test-store.js';

forEachStore((store) => {
  test(`queued jobs run to completion: outputs stored under the take folder, hashed, in the ledger, each rendered once on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, { store, instances: [{}, {}] });
    const ids = await farm.importJobs([
      { id: 'sh010' },
      { id: 'sh020' },
      { id: 'sh030' },
      { id: 'sh040' },
      { id: 'sh050' },
    ]);
    await farm.waitForStates(ids, ['completed']);
    const assets = farm.engine.db.all(
      'SELECT job_id, path, sha256, bytes, width, height, media_type, template_name, seed FROM assets',
    ) as {
      job_id: string;
      path: string;
      sha256: string;
      bytes: number;
      width: number;
      height: number;
      media_type: string;
      template_name: string;
      seed: number;
    }[];
    assert.equal(assets.length, 5);
    for (const a of assets) {
      assert.ok(existsSync(a.path));
      assert.match(a.path, /\/out\/P\/E\/sh0\d0\/keyframe\/take-1\/test_\d{5}_\.png$/);
      assert.equal(createHash('sha256').update(readFileSync(a.path)).digest('hex'), a.sha256);
      assert.equal(a.media_type, 'image/png');
      assert.ok(a.width > 0 && a.height > 0);
      assert.equal(a.template_name, 'txt2img');
    }
    for (const id of ids) assert.equal(executedCount(farm, id), 1, `job ${id} rendered once`);
    const events = farm.engine.db.all('SELECT to_state FROM job_events WHERE job_id = ? ORDER BY id', ids[0]) as {
      to_state: string;
    }[];
    assert.deepEqual(
      events.map((e) => e.to_state),
      ['queued', 'running', 'completed'],
    );
    const attempts = farm.engine.db.all(
      'SELECT outcome, prompt_number, client_id FROM attempts WHERE job_id = ?',
      ids[0],
    ) as { outcome: string; prompt_number: number; client_id: string }[];
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0]?.outcome, 'completed');
    assert.match(attempts[0]?.client_id ?? '', /^sf-/);
  });

  test(`one out-of-memory failure is retried and does not stop the jobs behind it (incident 1) on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, { store, instances: [{ script: ['oom'] }] });
    const ids = await farm.importJobs([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
    const views = await farm.waitForStates(ids, ['completed']);
    // The simulator answers the first prompt it receives with an OOM, whichever job that is.
    const retried = views.filter((v) => v.attempts === 2);
    assert.equal(retried.length, 1);
    const first = retried[0]!;
    const att = farm.engine.db.all(
      'SELECT outcome, error_class, reason FROM attempts WHERE job_id = ? ORDER BY n',
      first.id,
    ) as { outcome: string; error_class: string; reason: string }[];
    assert.equal(att[0]?.error_class, 'oom');
    assert.match(att[0]?.reason ?? '', /out of GPU memory in KSampler \(node 3\) on sim-0/);
    for (const id of ids) assert.equal(executedCount(farm, id), 1);
  });

  test(`a node error is a final failure with the node and exception, never retried on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, { store, instances: [{ script: ['error'] }] });
    const ids = await farm.importJobs([{ id: 'one' }, { id: 'two' }]);
    const views = await farm.waitForStates(ids, ['completed', 'failed_final']);
    // The simulator fails the first prompt it receives, whichever job that is.
    const b = views.find((v) => v.state === 'failed_final');
    const g = views.find((v) => v !== b);
    assert.equal(b?.state, 'failed_final');
    assert.equal(b?.errorClass, 'permanent');
    assert.match(b?.stateReason ?? '', /\(node \d+\) failed: RuntimeError: /);
    assert.equal(b?.attempts, 1);
    assert.equal(g?.state, 'completed');
    // SPEC §5: after a failure the workstation is asked to free its memory.
    assert.ok(farm.sims[0]!.freeRequests() >= 1, 'POST /free was sent after the failure');
  });

  test(`a workflow ComfyUI rejects (400) fails for good at once, with the node errors on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, { store, instances: [{ script: ['invalid'] }] });
    const [id] = await farm.importJobs([{ id: 'x' }]);
    const [v] = await farm.waitForStates([id!], ['failed_final']);
    assert.match(v?.stateReason ?? '', /ComfyUI rejected the workflow/);
    assert.equal(receivedCount(farm, id!), 0, 'a 400 queues nothing');
    assert.equal(v?.attempts, 1);
  });

  test(`a node missing on every workstation leaves the job queued and blocked, with the reason and no POST /prompt (incident 6) on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, { store, instances: [{}, {}] });
    const [id] = await farm.importJobs([{ id: 'post010', template: 'needs-custom-node', stage: 'post' }]);
    await farm.waitFor('the job to be marked blocked', async () => (await farm.job(id!)).blocked);
    const v = await farm.job(id!);
    assert.equal(v.state, 'queued', 'blocked is a wait reason, not a state');
    assert.match(v.waitReason ?? '', /node `VHS_VideoCombine` is not installed on any workstation/);
    assert.equal(v.attempts, 0, 'no GPU was used');
    assert.equal(receivedCount(farm, id!), 0);
    assert.equal((await farm.engine.call('farm.status', {})).blocked, 1);
  });

  test(`a job blocked by a node no workstation has runs once a workstation that has the node is added on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, {
      store,
      instances: [{ nodeClasses: DEFAULT_NODE_CLASSES.filter((c) => c !== 'KSampler') }],
      start: false,
    });
    const [id] = await farm.importJobs([{ id: 'k1' }]);
    farm.engine.startScheduler(FAST);
    await farm.waitFor('the job to be marked blocked', async () => (await farm.job(id!)).blocked);
    assert.match((await farm.job(id!)).waitReason ?? '', /^node `KSampler` is not installed on any workstation$/);
    const sim = await startSimInstance({ name: 'sim-1', duration: { fixedMs: 20 } });
    farm.sims.push(sim);
    await farm.engine.call('instances.add', { name: 'sim-1', url: sim.url });
    const [v] = await farm.waitForStates([id!], ['completed']);
    assert.equal(v?.blocked, false);
    assert.equal(sim.counts(id!).executed, 1);
    assert.equal(farm.sims[0]!.counts(id!).received, 0);
  });

  test(`a model missing on one workstation sends the job to the one that has it on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, {
      store,
      instances: [
        { models: { checkpoints: ['other.safetensors'] } },
        { models: { checkpoints: ['hero.safetensors'] } },
      ],
    });
    const [id] = await farm.importJobs([{ id: 'x', parameters: { ckpt: 'hero.safetensors' } }]);
    await farm.waitForStates([id!], ['completed']);
    assert.equal(farm.sims[0]!.counts(id!).received, 0);
    assert.equal(farm.sims[1]!.counts(id!).executed, 1);
  });

  test(`a dropped WebSocket mid-prompt does not render the shot twice (incident 2) on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, { store, instances: [{ script: ['drop'], duration: { fixedMs: 300 } }] });
    const [id] = await farm.importJobs([{ id: 'x' }]);
    const [v] = await farm.waitForStates([id!], ['completed']);
    assert.equal(v?.attempts, 1);
    assert.equal(executedCount(farm, id!), 1);
    assert.equal(receivedCount(farm, id!), 1);
  });

  test(`the import preview flags a node no workstation has, once the workstations have reported on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, { store, instances: [{}] });
    await farm.waitFor('the node list', () => farm.engine.scheduler!.readiness().every((i) => i.nodeListKnown));
    const list = {
      project: 'P',
      episode: 'E',
      shots: [
        { id: 'p1', stage: 'post', template: 'needs-custom-node' },
        { id: 'k1', stage: 'keyframe', template: 'txt2img' },
      ],
    };
    const preview = await farm.engine.call('import.preview', { fileName: 'l.json', content: JSON.stringify(list) });
    assert.equal(preview.rows[0]?.status, 'error');
    assert.match(preview.rows[0]?.errors.join() ?? '', /node `VHS_VideoCombine` is not installed on any workstation/);
    assert.equal(preview.rows[1]?.status, 'new');
    assert.deepEqual(preview.notices, []);
  });

  test(`a job imported by another process while the farm runs is dispatched without anything else happening on ${store}`, async (ctx) => {
    const farm = await farmFor(ctx, { store, instances: [{}] });
    const { Engine } = await import('../../electron/engine/engine.js');
    // A CLI in another terminal: its own engine on the same data folder, no scheduler.
    const cli = new Engine({ dataDir: farm.dir, databaseUrl: farm.store.databaseUrl });
    ctx.after(() => cli.close());
    // A first job through the farm: afterwards it is idle, with nothing left that would wake it.
    await farm.waitForStates(await farm.importJobs([{ id: 'first' }]), ['completed']);
    await farm.waitFor(
      'the runner to be gone',
      async () => (await farm.engine.call('farm.status', {})).activeAttempts === 0,
    );
    // The pass its end asked for is already queued (setImmediate): let it run, so it cannot see the new job.
    await new Promise((r) => setImmediate(r));
    const list = { project: 'P', episode: 'E', shots: [{ id: 'late', stage: 'keyframe', template: 'txt2img' }] };
    const preview = await cli.call('import.preview', { fileName: 'late.json', content: JSON.stringify(list) });
    const { jobIds } = await cli.call('import.commit', { previewId: preview.previewId });
    await farm.waitForStates(jobIds, ['completed']);
    assert.equal(executedCount(farm, jobIds[0] as string), 1);
  });
});
