/**
 * A job's view is built in one place (electron/engine/views/job-views.ts): what the announcer sends
 * (the `job.changed` event, an action's answer) equals what `jobs.list` and `jobs.get` show for the
 * same job at that moment — queued (with why it waits), running (with its live attempt), held,
 * completed — with a farm running in the process and without one (a CLI's engine: the store's facts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JobView } from '../../shared/domain.js';
import type { Engine } from '../../electron/engine/engine.js';
import { farmFor } from '../helpers/farm.js';

interface Seen {
  announced: JobView;
  listed: Promise<JobView | undefined>;
  got: Promise<JobView>;
}

/**
 * Asks `jobs.list` and `jobs.get` for every announced job inside the event's listener: `call` runs
 * the handler before its first await, so both views are built at the instant of the announcement.
 */
function watchAnnouncements(engine: Engine): { seen: Seen[]; off: () => void } {
  const seen: Seen[] = [];
  const off = engine.events.on('job.changed', ({ job }) => {
    seen.push({
      announced: structuredClone(job),
      listed: engine.call('jobs.list', { limit: 100 }).then((page) => page.rows.find((v) => v.id === job.id)),
      got: engine.call('jobs.get', { id: job.id }),
    });
  });
  return { seen, off };
}

async function assertSame(seen: Seen[]): Promise<void> {
  for (const s of seen) {
    const what = `${s.announced.shot} ${s.announced.state}`;
    assert.deepEqual(await s.listed, s.announced, `jobs.list shows the announced view of ${what}`);
    assert.deepEqual(await s.got, s.announced, `jobs.get shows the announced view of ${what}`);
  }
}

test('every announced view of a job equals its listed view at that moment, as a farm runs it here', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ duration: { fixedMs: 300 } }], start: false });
  const ids = await farm.importJobs([{ id: 'first', priority: 'rush' }, { id: 'second' }, { id: 'held' }]);
  const { seen, off } = watchAnnouncements(farm.engine);
  ctx.after(off);
  const answered = await farm.engine.call('jobs.hold', { ids: [ids[2]!] });
  farm.startScheduler();
  await farm.waitForStates(ids.slice(0, 2), ['completed'], 30_000);

  const states = new Set(seen.map((s) => s.announced.state));
  for (const state of ['held', 'running', 'completed'])
    assert.ok(states.has(state as JobView['state']), `a ${state} view was announced`);
  assert.ok(
    seen.some((s) => s.announced.state === 'running' && s.announced.attempt),
    'a running view carries its live attempt',
  );
  assert.deepEqual(answered, [seen[0]!.announced], 'the action answers with the announced view');
  await assertSame(seen);
});

test('the announced view of a queued job equals its listed view with no farm in the process (the store says why it waits)', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{}], start: false });
  const ids = await farm.importJobs([{ id: 'a' }, { id: 'b' }]);
  const { seen, off } = watchAnnouncements(farm.engine);
  ctx.after(off);
  const answered = await farm.engine.call('jobs.bump', { ids, priority: 'high' });
  assert.equal(seen.length, 2);
  assert.ok(
    seen.every((s) => s.announced.state === 'queued' && s.announced.waitReason),
    'queued views say why they wait',
  );
  assert.deepEqual(
    answered,
    seen.map((s) => s.announced),
    'the action answers with the announced views',
  );
  await assertSame(seen);
});
