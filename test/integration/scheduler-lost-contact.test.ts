/**
 * Lost contact is visible from the first failed probe: the running job says since when and when it
 * will be requeued (its view, `job.changed`, the CLI in another process), the workstation card
 * drops the figures it no longer knows and keeps the true time of its last answer, and the
 * timeline marks the stretch. All of it clears when the workstation answers again.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { JobView } from '../../shared/domain.js';
import { runCli } from '../helpers/cli.js';
import { farmFor, type Farm } from '../helpers/farm.js';

const GRACE_MS = 30_000;

async function instance(farm: Farm) {
  return (await farm.engine.call('instances.list', {}))[0]!;
}

async function bar(farm: Farm, attemptId: string) {
  const now = Date.now();
  const t = await farm.engine.call('timeline.get', { from: now - 600_000, to: now + 60_000 });
  return t.bars.find((b) => b.attemptId === attemptId);
}

/** One workstation running a 3 s prompt that goes silent (partitioned) mid-prompt, for this test; `onRunning` sees it before. */
async function silentMidPrompt(
  ctx: TestContext,
  shot: string,
  onRunning: (farm: Farm, id: string) => void = () => {},
): Promise<{ farm: Farm; id: string }> {
  const farm = await farmFor(ctx, {
    instances: [{ duration: { fixedMs: 3_000 } }],
    // Probes that give up fast, and a grace long enough that the attempt is not given up meanwhile.
    config: { probeIntervalMs: 100, probeTimeoutMs: 300, graceMs: GRACE_MS },
  });
  const [id] = (await farm.importJobs([{ id: shot }])) as [string];
  await farm.waitFor('the prompt running', async () => (await farm.job(id)).attempt?.phase === 'running');
  onRunning(farm, id);
  farm.sims[0]!.partition(true);
  await farm.waitFor('lost contact on the job', async () => (await farm.job(id)).contact !== null);
  return { farm, id };
}

test('a partitioned workstation: the job and the card show lost contact from the first failed probe, and clear when it answers', async (ctx) => {
  const changed: JobView[] = [];
  const { farm, id } = await silentMidPrompt(ctx, 'silent', (f, jobId) => {
    f.engine.events.on('job.changed', ({ job }) => void (job.id === jobId && changed.push(job)));
  });
  const v = await farm.job(id);
  assert.equal(v.state, 'running');
  assert.equal(v.contact?.instanceName, 'sim-0');
  assert.equal(
    (v.contact?.requeueAt ?? 0) - (v.contact?.lostAt ?? 0),
    GRACE_MS,
    'requeued a grace time after the last answer',
  );
  assert.ok(
    changed.some((j) => j.contact !== null),
    'a job.changed event carried it',
  );

  await farm.waitFor('the card to drop what it no longer knows', async () => (await instance(farm)).vram === null);
  const card = await instance(farm);
  assert.equal(card.queueLength, null);
  assert.ok(
    card.lastAnswerAt !== null && card.lastProbeAt !== null && card.lastAnswerAt < card.lastProbeAt,
    'last answer older than last probe',
  );
  assert.ok(
    Math.abs((card.lastAnswerAt ?? 0) - (v.contact?.lostAt ?? 0)) < 1_000,
    'the card and the job count from the same last answer',
  );

  // The CLI reads the store from its own engine (another process would do the same).
  const listed = await runCli(farm.dir, 'jobs', 'list');
  assert.match(listed.out, /lost contact with sim-0 \d+ s ago; requeued in \d+ s unless it answers/);

  const attemptId = v.attempt?.id ?? '';
  const open = await bar(farm, attemptId);
  assert.deepEqual(open?.contactGaps, [{ from: v.contact?.lostAt, to: null }]);

  farm.sims[0]!.partition(false);
  await farm.waitFor('contact back', async () => (await farm.job(id)).contact === null);
  await farm.waitFor('the card figures back', async () => (await instance(farm)).vram !== null);
  const [done] = await farm.waitForStates([id], ['completed'], 20_000);
  assert.equal(done?.attempts, 1, 'the attempt was kept: it answered within the grace time');
  const closed = await bar(farm, attemptId);
  assert.equal(closed?.contactGaps.length, 1);
  assert.equal(closed?.contactGaps[0]?.from, v.contact?.lostAt);
  assert.ok(
    (closed?.contactGaps[0]?.to ?? 0) > (closed?.contactGaps[0]?.from ?? 0),
    'the stretch closed when it answered',
  );
});

test('a crashed workstation: the job shows lost contact at once, is requeued at the time it said, and the timeline keeps the stretch', async (ctx) => {
  const grace = 1_500;
  const farm = await farmFor(ctx, {
    instances: [{ duration: { fixedMs: 2_000 } }],
    config: { graceMs: grace, retry: { maxAttempts: 2, baseMs: 10, capMs: 10 } },
  });
  const [id] = (await farm.importJobs([{ id: 'crashed' }])) as [string];
  await farm.waitFor('the prompt running', async () => (await farm.job(id)).attempt?.phase === 'running');
  await farm.sims[0]!.crash();
  await farm.waitFor('lost contact on the job', async () => (await farm.job(id)).contact !== null);
  const lost = await farm.job(id);
  const attemptId = lost.attempt?.id ?? '';
  await farm.waitFor(
    'the attempt given up',
    async () => (await farm.job(id)).state !== 'running' || (await farm.job(id)).attempt?.id !== attemptId,
  );
  const [att] = await farm.engine.call('jobs.attempts', { id: id });
  assert.equal(att?.outcome, 'retry');
  assert.match(att?.reason ?? '', /lost contact with sim-0 for \d+ s/);
  assert.ok((att?.finishedAt ?? 0) >= (lost.contact?.requeueAt ?? Infinity), 'not given up before the time it showed');
  const gaps = (await bar(farm, attemptId))?.contactGaps ?? [];
  assert.equal(gaps.length, 1);
  assert.equal(gaps[0]?.from, lost.contact?.lostAt);
  assert.equal(gaps[0]?.to, att?.finishedAt, 'the stretch ends with the attempt');
  await farm.sims[0]!.restart();
  const [v] = await farm.waitForStates([id], ['completed'], 30_000);
  assert.equal(v?.contact, null);
});

test('an engine restarted while a workstation is silent keeps showing the lost contact, with a fresh grace time, until it answers', async (ctx) => {
  const { farm, id } = await silentMidPrompt(ctx, 'silent-restart');
  const before = (await farm.job(id)).contact;
  const restartedAt = Date.now();
  await farm.restartEngine();
  // The recovered mark is written in the tick's commit batch: the view shows it once committed.
  await farm.waitFor('the recovered attempt following, a full grace time from the recovery', async () => {
    const v = await farm.job(id);
    return v.attempt !== null && (v.contact?.requeueAt ?? 0) >= restartedAt + GRACE_MS;
  });
  const after = (await farm.job(id)).contact;
  assert.equal(after?.lostAt, before?.lostAt, 'still counted from the last answer before the restart');
  farm.sims[0]!.partition(false);
  await farm.waitFor('contact back', async () => (await farm.job(id)).contact === null);
  const [done] = await farm.waitForStates([id], ['completed'], 20_000);
  assert.equal(done?.attempts, 1);
});

test('a grace time shortened during the silence moves the requeue time it shows and decides the attempt', async (ctx) => {
  const { farm, id } = await silentMidPrompt(ctx, 'silent-shortened');
  const shown = (await farm.job(id)).contact;
  assert.equal((shown?.requeueAt ?? 0) - (shown?.lostAt ?? 0), GRACE_MS);
  await farm.engine.call('settings.set', { key: 'grace_s', value: 1 });
  await farm.waitFor('the attempt given up', async () => (await farm.job(id)).state !== 'running', 10_000);
  const [att] = await farm.engine.call('jobs.attempts', { id });
  assert.match(att?.reason ?? '', /lost contact with sim-0 for \d+ s/);
  assert.ok((att?.finishedAt ?? Infinity) < (shown?.requeueAt ?? 0), 'long before the time shown first');
  farm.sims[0]!.partition(false);
});
