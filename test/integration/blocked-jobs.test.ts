/**
 * A job that no registered workstation could ever take is marked blocked — durably, in `status`,
 * in its events — while it stays queued, and is unblocked when a workstation that can take it is
 * added. Imports by another process (the CLI while the app runs) are noticed too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobView } from '../../shared/domain.js';
import { runCli } from '../helpers/cli.js';
import { FAST, farmFor, startFarm, startPaused } from '../helpers/farm.js';
import { jobCopies } from '../helpers/job-copies.js';
import { addTemplateVariant } from '../helpers/template-variants.js';
import { startSimInstance } from '../simulator/index.js';

test('a job needing a tag nobody has is counted blocked soon after its import, and unblocked when a workstation with that tag is added', async () => {
  const farm = await startFarm({ instances: [{ tags: ['i2v'] }] });
  try {
    await addTemplateVariant(farm.engine, 'txt2img', { name: 'tagged', tags: ['img2img'] });
    const events: JobView[] = [];
    farm.engine.events.on('job.changed', ({ job }) => void events.push(job));
    // Imported by another process: the farm hears of it from the store, not from an event.
    const list = join(farm.dir, 'list.json');
    writeFileSync(
      list,
      JSON.stringify({ project: 'P', episode: 'E', shots: [{ id: 'sh1', stage: 'keyframe', template: 'tagged' }] }),
    );
    // The preview says so before anything is stored, and still lets the row in.
    const preview = await farm.engine.call('import.preview', {
      fileName: 'list.json',
      content: readFileSync(list, 'utf8'),
      baseDir: farm.dir,
    });
    assert.deepEqual(preview.counts, { new: 1, duplicate: 0, error: 0 });
    assert.deepEqual(preview.rows[0]?.warnings, [
      "needs tag img2img, which no workstation has: it will wait as blocked until one does (Edit a workstation's tags under Workstations)",
    ]);
    const imported = await runCli(farm.dir, 'import', list);
    assert.equal(imported.code, 0, imported.out + imported.err);
    await farm.waitFor('the blocked count', async () => (await farm.engine.call('farm.status', {})).blocked === 1);
    const [job] = (await farm.engine.call('jobs.list', { filter: { shot: 'sh1' } })).rows;
    assert.equal(job?.state, 'queued');
    assert.equal(job?.blocked, true);
    assert.equal(job?.waitReason, 'needs tag img2img, which no workstation has');
    assert.ok(
      events.some((e) => e.id === job.id && e.blocked && e.waitReason === job.waitReason),
      'its event carried the mark',
    );
    const stored = farm.engine.db.one('SELECT blocked, wait_reason FROM jobs WHERE id = ?', job.id);
    assert.deepEqual(stored, { blocked: 1, wait_reason: 'needs tag img2img, which no workstation has' });

    const status = await runCli(farm.dir, 'status');
    assert.match(status.out, /queued 1 .*\(blocked 1\)/);
    const listed = await runCli(farm.dir, 'jobs', 'list');
    assert.match(listed.out, /blocked: needs tag img2img, which no workstation has/);

    const sim = await startSimInstance({ name: 'tagged', duration: { fixedMs: 20 } });
    farm.sims.push(sim);
    await farm.engine.call('instances.add', { name: 'tagged', url: sim.url, tags: ['img2img'] });
    const [done] = await farm.waitForStates([job.id], ['completed']);
    assert.equal(done?.blocked, false);
    assert.equal((await farm.engine.call('farm.status', {})).blocked, 0);
    assert.ok(
      events.some((e) => e.id === job.id && e.state === 'queued' && !e.blocked),
      'unblocked before it ran, in an event',
    );
  } finally {
    await farm.close();
  }
});

test('the blocked mark is written once, not once per decision pass, and survives a restart', async () => {
  const farm = await startFarm({ instances: [{}], start: false });
  try {
    await addTemplateVariant(farm.engine, 'video18', { name: 'huge', vram_gb: 48 });
    // Imported before any probe: the preview cannot check the VRAM fit yet, the farm can.
    const id = (await farm.importJobs([{ id: 'big', template: 'huge', stage: 'motion' }]))[0] as string;
    farm.engine.startScheduler(FAST);
    await farm.waitFor('the mark', async () => (await farm.job(id)).blocked);
    assert.equal((await farm.job(id)).waitReason, 'needs 48 GB of VRAM; the largest workstation has 24 GB');
    const updatedAt = (await farm.job(id)).updatedAt;
    // Many decision passes later (other jobs run to completion), the mark was not written again.
    const others = await farm.importJobs([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
    await farm.waitForStates(others, ['completed']);
    assert.equal((await farm.job(id)).updatedAt, updatedAt);
    await farm.restartEngine();
    const after = await farm.job(id);
    assert.equal(after.blocked, true, 'still blocked after a restart, from the store');
  } finally {
    await farm.close();
  }
});

test('an import of several hundred jobs by another process is marked blocked chunk by chunk, and the sweep restores a mark changed behind the farm', async () => {
  const farm = await startFarm({ instances: [{ tags: ['i2v'] }] });
  try {
    await addTemplateVariant(farm.engine, 'txt2img', { name: 'tagged', tags: ['img2img'] });
    const n = 300; // more than two of the scan's 125-row turns
    const list = join(farm.dir, 'many.json');
    writeFileSync(
      list,
      JSON.stringify({
        project: 'P',
        episode: 'E',
        shots: Array.from({ length: n }, (_, i) => ({ id: `sh${i}`, stage: 'keyframe', template: 'tagged' })),
      }),
    );
    const imported = await runCli(farm.dir, 'import', list);
    assert.equal(imported.code, 0, imported.out + imported.err);
    await farm.waitFor(
      `all ${n} counted blocked`,
      async () => (await farm.engine.call('farm.status', {})).blocked === n,
      20_000,
    );
    // Another process clears marks deep in the queue (past the first turns): only the sweep finds them.
    const cleared = farm.engine.db.run(
      'UPDATE jobs SET blocked = 0, wait_reason = NULL WHERE rowid IN (SELECT rowid FROM jobs ORDER BY rowid DESC LIMIT 5)',
    ).changes;
    assert.equal(cleared, 5);
    await farm.waitFor(
      'the sweep to mark them again',
      () => (farm.engine.db.one('SELECT COUNT(*) AS n FROM jobs WHERE blocked = 1') as { n: number }).n === n,
      20_000,
    );
  } finally {
    await farm.close();
  }
});

test("an import's jobs are looked at once by the blocked-jobs keeper: not as new rows besides the pass the import begins, nor in a second pass for facts that changed before it", async (ctx) => {
  const farm = await farmFor(ctx, {
    instances: [{}, {}],
    start: false,
    // One interval outlasts the test's wait: a pass for changed facts would begin at its end.
    config: { probeIntervalMs: 4_000 },
  });
  // Paused: the imported jobs stay queued for the keeper to look at. The keeper looked at the farm
  // as it started, before the workstations came up: the facts it last saw are older than the ones
  // the import's first step meets.
  const scheduler = await startPaused(farm, { up: true });
  const keeper = scheduler.blockedKeeper;
  const before = { passes: keeper.passes, steps: keeper.steps, looks: keeper.newRowLooks, ...keeper.rows };
  const n = 600; // past the announcer's bulk threshold (200): one bulk change, which begins a full pass
  await farm.importJobs(Array.from({ length: n }, (_, i) => ({ id: `s${i}` })));
  await farm.waitFor('the pass over the imported jobs', () => keeper.rows.pass - before.pass >= n);
  // During the pass, the look for rows stored since (another process's import; on PostgreSQL a
  // round trip) is taken every 8th step (and once after it), not at every step.
  const steps = keeper.steps - before.steps;
  const looks = keeper.newRowLooks - before.looks;
  assert.ok(steps >= Math.ceil(n / 125), `${steps} steps`);
  assert.ok(looks <= Math.ceil(steps / 8) + 1, `${looks} looks for new rows in the pass's ${steps} steps`);
  // Past the interval from the import's pass: a second pass, had one been asked for, has begun.
  await new Promise((r) => setTimeout(r, 4_500));
  assert.equal(keeper.rows.new - before.new, 0, 'no imported job read again as a new row');
  assert.equal(keeper.passes - before.passes, 1, 'one full pass, the one the import began');
  assert.equal(keeper.rows.pass - before.pass, n, 'each imported job looked at once by it');
});

test('a job stored by another process while a pass walks the queue is looked at by the end of the pass, wherever it falls in the queue', async (ctx) => {
  const farm = await farmFor(ctx, {
    instances: [{ tags: ['i2v'] }],
    start: false,
    config: { probeIntervalMs: 60_000 },
  });
  const queued = 12_000; // ~100 of the keeper's turns for a pass
  await farm.importJobs(Array.from({ length: queued }, (_, i) => ({ id: `s${i}` })));
  const scheduler = await startPaused(farm);
  const keeper = scheduler.blockedKeeper;
  const [model] = (await farm.engine.call('jobs.list', { filter: { shot: 's0' } })).rows;
  assert.ok(model);
  // The pass begun at the start, caught under way.
  await farm.waitFor('the pass under way', () => keeper.rows.pass > 500 && keeper.rows.pass < queued - 2_000, 20_000);
  const walked = keeper.rows.pass;
  // Another process's job queued "before" every other (an earlier clock): behind the pass's cursor,
  // and needing a tag no workstation has.
  jobCopies(farm.engine.db, model.id, 1, { tag: 'other', enqueuedAt: 1 });
  const other = `${model.id}-other1`;
  farm.engine.db.run('UPDATE jobs SET tags_json = ? WHERE id = ?', '["img2img"]', other);
  assert.ok(walked < queued, 'stored while the pass was under way');
  await farm.waitFor(
    "the other process's job marked blocked",
    () => (farm.engine.db.one('SELECT blocked FROM jobs WHERE id = ?', other) as { blocked: number }).blocked === 1,
    20_000,
  );
});
