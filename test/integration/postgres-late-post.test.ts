/**
 * A POST /prompt that reaches its server after the workstation's lease moved on (issue 27): the
 * engine that sent it was frozen between its fenced write and the POST, or the POST was slow on its
 * way. Real engines on one PostgreSQL farm and a real simulator on loopback, whose POST /prompt is
 * held (read, not yet queued) to stand for the POST on its way: the engine that sent it stops
 * renewing (a frozen engine, as the others see it), another adopts the workstation, and the POST
 * lands at a chosen moment. Either the adopter follows it, or the sender takes it off the server:
 * the job renders once (pools/comfy-lan/late-post.ts).
 */
import assert from 'node:assert/strict';
import { after, test, type TestContext } from 'node:test';
import type { Engine } from '../../electron/engine/engine.js';
import { executed, held, LEASE_MS, leasesOf, received, sharedFarm, waitFor } from '../helpers/engines-farm.js';
import { testPostgres } from '../helpers/test-store.js';

after(async () => (await testPostgres()).close());

/**
 * No prefetch (one prompt per server at a time); the sender's POST may be held for several
 * seconds, longer than the tests' usual 2 s request deadline.
 */
const OVER = { prefetch: false, requestTimeoutMs: 30_000 };

function openAttempts(e: Engine, jobId: string): number {
  return e.db.one<{ n: number }>("SELECT COUNT(*) AS n FROM attempts WHERE job_id = ? AND state <> 'ended'", jobId)
    ?.n as number;
}

async function serverIdle(url: string): Promise<boolean> {
  const q = (await (await fetch(`${url}/queue`)).json()) as { queue_running: unknown[]; queue_pending: unknown[] };
  return q.queue_running.length === 0 && q.queue_pending.length === 0;
}

/**
 * One workstation rendering `renderMs` prompts; the sender leases it and sends one job whose POST is
 * held on its way; then the sender freezes (stops renewing) and a second engine adopts the workstation.
 */
async function postOnItsWayAdopted(ctx: TestContext, renderMs: number, shot: string) {
  const farm = await sharedFarm(ctx, [{ duration: { fixedMs: renderMs } }], OVER);
  const [sender] = farm.engines as [Engine];
  const sim = farm.sims[0];
  assert.ok(sim);
  await waitFor(sender, farm, 'the sender to lease the workstation', () => held(sender).length === 1);
  sim.holdPrompts(1);
  const [id] = (await farm.importJobs(1, shot)) as [string];
  await waitFor(sender, farm, 'the POST to be on its way', () => sim.heldPrompts() === 1);
  leasesOf(sender).pause();
  const adopter = farm.engine();
  await waitFor(adopter, farm, 'the adopter to take the workstation', () => held(adopter).length === 1, LEASE_MS * 3);
  return { farm, sender, sim, id, adopter };
}

test('an adopter does not requeue an absent prompt before the grace period, and follows it when it turns up', {
  timeout: 60_000,
}, async (ctx) => {
  // The sender freezes with its POST on the way; another engine adopts the workstation.
  const { farm, sim, id, adopter } = await postOnItsWayAdopted(ctx, 1_000, 'late');
  await waitFor(adopter, farm, 'the adopter to wait before requeueing', () =>
    farm.logs.some((l) => l.startsWith('[engine 1]') && /not on the workstation; looking again in \d+ ms/.test(l)),
  );
  assert.equal(openAttempts(adopter, id), 1, 'the attempt is still open during the grace');

  // The late POST lands within the grace: the adopter finds it and follows it to the end.
  sim.releasePrompts();
  await waitFor(
    adopter,
    farm,
    'the job completed',
    async () => (await adopter.call('jobs.get', { id })).state === 'completed',
    30_000,
  );
  const attempts = adopter.db.all<{ outcome: string }>('SELECT outcome FROM attempts WHERE job_id = ?', id);
  assert.deepEqual(
    attempts.map((a) => a.outcome),
    ['completed'],
    'the sender’s attempt itself completed, followed by the adopter (never requeued)',
  );
  assert.equal(received(farm, id), 1, 'posted once');
  assert.equal(executed(farm, id), 1, 'rendered once');
  assert.ok(
    farm.logs.some(
      (l) => l.startsWith('[engine 0]') && /posted after the lease moved on; the attempt is still open/.test(l),
    ),
    'the sender left its prompt to the adopter',
  );
});

test('an engine that loses its lease between the fenced write and the POST takes the prompt it posted off the server once the attempt was requeued', {
  timeout: 60_000,
}, async (ctx) => {
  // The sender freezes past the adopter's grace: the adopter requeues the attempt and runs the job itself.
  const { farm, sim, id, adopter } = await postOnItsWayAdopted(ctx, 3_000, 'stale');
  await waitFor(
    adopter,
    farm,
    'the adopter’s own attempt to run the job',
    () => sim.counts(id).received === 1 && openAttempts(adopter, id) === 1,
    20_000,
  );
  const outcomes = adopter.db.all<{ outcome: string | null }>(
    'SELECT outcome FROM attempts WHERE job_id = ? ORDER BY n',
    id,
  );
  assert.equal(outcomes[0]?.outcome, 'requeued', 'the sender’s attempt was requeued by the adopter');

  // The sender wakes: its POST lands behind the adopter's run, then it finds its attempt over.
  sim.releasePrompts();
  await waitFor(adopter, farm, 'the sender to take its late prompt off the server', () =>
    farm.logs.some(
      (l) =>
        l.startsWith('[engine 0]') &&
        /posted after the lease moved on; the attempt is over, so the prompt is taken off/.test(l),
    ),
  );
  await waitFor(
    adopter,
    farm,
    'the job completed',
    async () => (await adopter.call('jobs.get', { id })).state === 'completed',
    30_000,
  );
  await waitFor(adopter, farm, 'the server idle', () => serverIdle(sim.url), 20_000);
  assert.equal(received(farm, id), 2, 'the server got both POSTs');
  assert.equal(executed(farm, id), 1, 'rendered once: the late one never ran');
  const ended = adopter.db.all<{ outcome: string }>('SELECT outcome FROM attempts WHERE job_id = ? ORDER BY n', id);
  assert.deepEqual(
    ended.map((a) => a.outcome),
    ['requeued', 'completed'],
    'the sender recorded nothing for its late prompt',
  );
});
