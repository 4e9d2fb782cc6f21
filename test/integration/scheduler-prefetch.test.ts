/**
 * The next prompt already waiting (prefetch): on a busy workstation one more claimed prompt is
 * queued on the server behind the running one; a higher-priority job takes its place (the waiting
 * prompt is deleted from the server's queue, its job goes back to `queued`, the attempt not
 * counted); stop farm takes a waiting prompt off like a running one. Real SQLite, a simulator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { executedCount, farmFor, receivedCount, type Farm } from '../helpers/farm.js';

const attemptsOf = (farm: Farm, jobId: string) =>
  farm.engine.db.all('SELECT outcome, reason, started_at FROM attempts WHERE job_id = ? ORDER BY n', jobId) as {
    outcome: string | null;
    reason: string | null;
    started_at: number | null;
  }[];

/** Waits until the server runs the first job and holds the second in its queue, unstarted. */
async function oneRunningOneWaiting(farm: Farm, first: string, second: string): Promise<void> {
  await farm.waitFor('the second prompt queued on the server behind the first', () => {
    const s = farm.sims[0]!;
    return s.counts(first).received === 1 && s.counts(first).executed === 0 && s.counts(second).received === 1;
  });
}

test('on a busy workstation the next prompt is already queued on the server behind the running one', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ duration: { fixedMs: 300 } }] });
  const ids = await farm.importJobs([{ id: 'p1' }, { id: 'p2' }, { id: 'p3' }]);
  await oneRunningOneWaiting(farm, ids[0]!, ids[1]!);
  assert.equal(receivedCount(farm, ids[2]!), 0, 'at most one prompt waits behind the running one');
  await farm.waitForStates(ids, ['completed']);
  for (const id of ids) {
    assert.equal(executedCount(farm, id), 1);
    assert.deepEqual(
      attemptsOf(farm, id).map((a) => a.outcome),
      ['completed'],
    );
  }
});

test('a rush job arriving while a prompt waits takes its place: the waiting one is deleted from the server queue and requeued, uncounted', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ duration: { fixedMs: 400 } }] });
  const [a, b] = await farm.importJobs([{ id: 'n1' }, { id: 'n2' }]);
  await oneRunningOneWaiting(farm, a!, b!);
  const [rush] = await farm.importJobs([{ id: 'fix', priority: 'rush' }]);
  await farm.waitForStates([a!, b!, rush!], ['completed'], 30_000);
  const bAttempts = attemptsOf(farm, b!);
  assert.equal(bAttempts[0]?.outcome, 'requeued');
  assert.match(bAttempts[0]?.reason ?? '', /gave its place on sim-0 to a higher-priority job/);
  assert.equal((await farm.job(b!)).attempts, 1, 'the displaced attempt does not count');
  const started = (id: string) => attemptsOf(farm, id).find((x) => x.outcome === 'completed')?.started_at ?? Infinity;
  assert.ok(started(rush!) < started(b!), 'the rush job ran before the job it displaced');
  for (const id of [a!, b!, rush!]) assert.equal(executedCount(farm, id), 1, 'each rendered once');
});

test('stop farm takes a waiting prompt off the server too: both jobs back in the queue, each rendered once after resume', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ duration: { fixedMs: 600 } }] });
  const [a, b] = await farm.importJobs([{ id: 's1' }, { id: 's2' }]);
  await oneRunningOneWaiting(farm, a!, b!);
  await farm.engine.call('farm.stop', {});
  for (const id of [a!, b!]) {
    const v = await farm.job(id);
    assert.equal(v.state, 'queued');
    assert.equal(v.attempts, 0, 'a stopped attempt does not count');
  }
  assert.equal(executedCount(farm, b!), 0, 'the waiting prompt never ran');
  await farm.engine.call('farm.resume', {});
  await farm.waitForStates([a!, b!], ['completed']);
  assert.equal(executedCount(farm, b!), 1);
});
