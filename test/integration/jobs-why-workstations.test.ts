/**
 * `jobs.why` for a queued job: each workstation gives the first reason it cannot take the job now
 * (the list: busy, draining, disabled, offline, quarantined, missing tag, total VRAM, VRAM
 * held by other processes, node or model missing, reserved for another job), and `shotfarm jobs why`
 * — which runs no farm and answers from the store — says the same.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JobWhy } from '../../shared/domain.js';
import { runCli } from '../helpers/cli.js';
import { FAST, startFarm, type Farm } from '../helpers/farm.js';
import { addTemplateVariant } from '../helpers/template-variants.js';
import { DEFAULT_NODE_CLASSES } from '../simulator/node-catalog.js';

const kinds = (w: JobWhy): Record<string, string | null> =>
  Object.fromEntries(w.instances.map((i) => [i.name, i.kind]));
const why = (farm: Farm, id: string): Promise<JobWhy> => farm.engine.call('jobs.why', { id });

test('each workstation says the first reason it cannot take a queued job, and `jobs why` says the same as the API', async () => {
  const i2v = ['i2v'];
  const farm = await startFarm({
    instances: [
      { tags: [] }, // sim-0: lacks the tag
      { tags: i2v, vramTotalGb: 12 }, // sim-1: 12 GB in all, the job needs 18
      { tags: i2v, nodeClasses: DEFAULT_NODE_CLASSES.filter((c) => c !== 'KSampler') }, // sim-2: a node missing
      { tags: i2v, models: { checkpoints: ['other.safetensors'] } }, // sim-3: the checkpoint missing
      { tags: i2v }, // sim-4: disabled
      { tags: i2v }, // sim-5: draining
      { tags: i2v, vramOtherGb: 16 }, // sim-6: other processes hold 16 of 24 GB
      { tags: i2v }, // sim-7: offline
      { tags: i2v, duration: { fixedMs: 60_000 } }, // sim-8: busy with another job
    ],
    start: false,
  });
  try {
    await addTemplateVariant(farm.engine, 'video18', { name: 'tagged18', tags: i2v });
    await farm.engine.call('instances.setAdminState', { id: 'sim-4', adminState: 'disabled' });
    await farm.engine.call('instances.setAdminState', { id: 'sim-5', adminState: 'draining' });
    await farm.sims[7]!.close();
    // Only sim-8 can run it: it keeps sim-8 busy.
    const [busy] = await farm.importJobs([{ id: 'busy', template: 'tagged18', stage: 'motion' }]);
    // Prefetch off: the waiting job would otherwise be queued on sim-8 behind the busy one.
    farm.engine.startScheduler({ ...FAST, prefetch: false });
    await farm.waitForStates([busy!], ['running']);
    const [id] = await farm.importJobs([{ id: 'waits', template: 'tagged18', stage: 'motion' }]);
    const expected = {
      'sim-0': 'missing_tag',
      'sim-1': 'vram_total',
      'sim-2': 'capability',
      'sim-3': 'capability',
      'sim-4': 'disabled',
      'sim-5': 'draining',
      'sim-6': 'vram_other',
      'sim-7': 'offline',
      'sim-8': 'busy',
    };
    await farm.waitFor(
      'every workstation to give its reason',
      async () => JSON.stringify(kinds(await why(farm, id!))) === JSON.stringify(expected),
    );
    const live = await why(farm, id!);
    assert.equal(live.source, 'farm');
    assert.equal(live.state, 'queued');
    assert.equal(live.blocked, false, 'enabling sim-4 or un-draining sim-5 would let it run');
    assert.equal(live.lasting, 'now', 'sim-8 frees up by itself');
    const text = Object.fromEntries(live.instances.map((i) => [i.name, i.text]));
    assert.equal(text['sim-0'], 'lacks tag i2v');
    assert.match(text['sim-1']!, /has 12 GB of VRAM in all; the job needs 18 GB/);
    assert.match(text['sim-2']!, /node `KSampler` is not installed/);
    assert.match(
      text['sim-3']!,
      /model `sd_xl_base_1\.0\.safetensors` \(CheckpointLoaderSimple\.ckpt_name\) is not available/,
    );
    assert.match(text['sim-6']!, /other processes hold 16(\.\d)? GB of VRAM; 7\.\d GB usable, 18 GB needed/);
    assert.match(text['sim-7']!, /is offline/);
    assert.match(text['sim-8']!, /is busy \(1 of 1 slot in use\)/);

    // The CLI in another terminal reaches the engine that runs the farm (it holds the data folder's lock): the live answer.
    const viaFarm = await runCli(farm.dir, '--json', 'jobs', 'why', id!.slice(0, 8));
    assert.equal(viaFarm.code, 0, viaFarm.err);
    assert.equal((JSON.parse(viaFarm.out) as JobWhy).source, 'farm');
    assert.deepEqual(kinds(JSON.parse(viaFarm.out) as JobWhy), kinds(live));

    // With no farm running, the CLI opens the database itself: it answers from the store.
    await farm.engine.close();
    const cli = await runCli(farm.dir, '--json', 'jobs', 'why', id!.slice(0, 8));
    assert.equal(cli.code, 0, cli.err);
    const stored = JSON.parse(cli.out) as JobWhy;
    assert.equal(stored.source, 'store');
    assert.deepEqual(kinds(stored), kinds(live));
    assert.equal(stored.summary, live.summary);
    for (const i of stored.instances.filter((x) => x.kind !== 'offline'))
      assert.equal(i.text, text[i.name], `${i.name} says the same`);

    const human = await runCli(farm.dir, 'jobs', 'why', id!.slice(0, 8));
    assert.match(human.out, new RegExp(`^${id!.slice(0, 8)} waits/motion take 1: queued — `, 'm'));
    for (const [name, kind] of Object.entries(expected))
      assert.match(
        human.out,
        new RegExp(`^  ${name}  ${kind} +${text[name]!.slice(0, 12).replace(/[()]/g, '.')}`, 'm'),
      );
  } finally {
    await farm.close();
  }
});

test('a workstation kept for a job too large for the slots that free says so to the jobs it holds back, but not to a rush job', async () => {
  const farm = await startFarm({
    instances: [{ vramTotalGb: 24, concurrency: 2, duration: { fixedMs: 30_000 } }],
    start: false,
  });
  try {
    await addTemplateVariant(farm.engine, 'txt2img', { name: 'small8', vram_gb: 8 });
    await addTemplateVariant(farm.engine, 'txt2img', { name: 'big20', vram_gb: 20 });
    const running = await farm.importJobs([
      { id: 's1', template: 'small8' },
      { id: 's2', template: 'small8' },
    ]);
    farm.engine.startScheduler({ ...FAST, starvationMs: 200 });
    await farm.waitForStates(running, ['running']);
    const [big] = await farm.importJobs([{ id: 'big', template: 'big20' }]);
    const [small] = await farm.importJobs([{ id: 'small', template: 'small8' }]);
    await farm.waitFor(
      'the big job to wait past the starvation time',
      async () => (await farm.job(big!)).enqueuedAt <= Date.now() - 300,
    );
    // The rush import's decision pass finds the big job starving and keeps the GPU for it.
    const [rush] = await farm.importJobs([{ id: 'rush', template: 'small8', priority: 'rush' }]);
    await farm.waitFor(
      'the GPU to be kept for the big job',
      async () => (await why(farm, small!)).instances[0]?.kind === 'reserved',
    );
    assert.match((await why(farm, small!)).instances[0]!.text, new RegExp(`kept free for job ${big!.slice(0, 8)}`));
    assert.equal((await why(farm, big!)).instances[0]?.kind, 'busy', 'the big job itself waits for the GPU to drain');
    assert.equal((await why(farm, rush!)).instances[0]?.kind, 'busy', 'a rush job is not held back by the reservation');
  } finally {
    await farm.close();
  }
});

test('a quarantined workstation says until when', async () => {
  // One prompt at a time (prefetch off): the two scripted 500s are then the two attempts' POSTs, in a row.
  const farm = await startFarm({
    instances: [{ script: ['500', '500'] }],
    config: { quarantineAfter: 2, prefetch: false },
  });
  try {
    const ids = await farm.importJobs([{ id: 'a' }, { id: 'b' }]);
    await farm.waitFor(
      'the workstation to be quarantined',
      async () => (await farm.engine.call('instances.list', {}))[0]?.health === 'quarantined',
    );
    await farm.waitForStates(ids, ['queued']);
    const w = await why(farm, ids[0]!);
    assert.equal(w.instances[0]?.kind, 'quarantined');
    assert.match(w.instances[0]!.text, /is quarantined until \d\d:\d\d:\d\d after failures in a row/);
    assert.equal(w.lasting, 'now', 'a quarantine ends by itself');
  } finally {
    await farm.close();
  }
});
