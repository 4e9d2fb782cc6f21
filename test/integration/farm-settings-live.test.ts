/**
 * A farm setting changed while the farm runs applies at the farm's next decision, without a
 * restart: the retry budget at the next failure, the stall timeout and the grace time to the
 * attempt already running, the probe interval to the next probe, the output folder to the next
 * job collected (and the files already in the old one stay servable).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { systemTimers, type Timers } from '../../electron/engine/clock.js';
import { farmFor, startFarm } from '../helpers/farm.js';

test('a changed retry_attempts applies to the next failure and a changed stall timeout to the running attempt, without a restart', async () => {
  // The first attempt fails (500), the second hangs; the farm starts with 4 attempts and a 30 s stall timeout.
  const farm = await startFarm({ instances: [{ script: ['500', 'hang', 'hang', 'hang'] }] });
  try {
    const [id] = await farm.importJobs([{ id: 'budget' }]);
    await farm.waitFor(
      'the second attempt to hang on the server',
      async () => farm.sims[0]!.counts(id!).received === 1 && (await farm.job(id!)).state === 'running',
    );
    const first = (await farm.engine.call('jobs.attempts', { id: id! })).find((a) => a.n === 1);
    assert.match(first?.reason ?? '', /500/, 'the first attempt failed on the 500');

    await farm.engine.call('settings.set', { key: 'retry_attempts', value: 2 });
    assert.equal((await farm.job(id!)).maxAttempts, 2, 'the running job shows the new budget');
    await farm.engine.call('settings.set', { key: 'stall_timeout_s', value: 1 });

    const [v] = await farm.waitForStates(
      [id!],
      ['timeout_kill', 'failed_retryable', 'queued', 'completed', 'failed_final'],
      15_000,
    );
    assert.equal(v?.state, 'timeout_kill', 'no third attempt: the budget of 2 decided');
    assert.match(v?.stateReason ?? '', /no progress for 1 s \(stall timeout\); no attempts left \(2 of 2\)/);
    assert.equal(v?.attempts, 2);
    assert.equal(farm.sims[0]!.counts(id!).received, 1, 'never posted a third time');
  } finally {
    await farm.close();
  }
});

test('a changed grace time applies to an attempt already running when its workstation goes silent', async () => {
  // A grace of 60 s would outlast this test's deadline; the operator shortens it to 1 s mid-attempt.
  const farm = await startFarm({ instances: [{ script: ['hang'] }], config: { graceMs: 60_000 } });
  try {
    const [id] = await farm.importJobs([{ id: 'grace' }]);
    await farm.waitFor(
      'the prompt to be running on the server',
      async () => farm.sims[0]!.counts(id!).received === 1 && (await farm.job(id!)).state === 'running',
    );
    await farm.engine.call('settings.set', { key: 'grace_s', value: 1 });
    await farm.sims[0]!.crash();
    await farm.waitForStates([id!], ['failed_retryable', 'queued'], 15_000);
    const [attempt] = await farm.engine.call('jobs.attempts', { id: id! });
    const lost = /lost contact with sim-0 for (\d+) s/.exec(attempt?.reason ?? '');
    assert.ok(lost, `the attempt was lost: ${attempt?.reason}`);
    assert.ok(Number(lost[1]) < 60, 'decided on the new grace time, not the 60 s one');
  } finally {
    await farm.close();
  }
});

test('a changed probe interval is the interval of the next probe of every workstation', async () => {
  const armed: number[] = [];
  const timers: Timers = {
    setTimeout: (fn, ms) => (armed.push(ms), systemTimers.setTimeout(fn, ms)),
    clearTimeout: (h) => systemTimers.clearTimeout(h),
  };
  const farm = await startFarm({ instances: [{}, {}], timers });
  try {
    await farm.waitFor('both workstations to be probed', async () =>
      (await farm.engine.call('instances.list', {})).every((i) => i.lastProbeAt !== null),
    );
    // A probe loop's timer is the interval ±10 % (instance-registry.ts: workstations added together
    // must not probe in the same tick forever); the settings check's is the interval itself.
    const near = (ms: number) => ms >= 7_300 * 0.9 && ms <= 7_300 * 1.1;
    assert.equal(armed.filter(near).length, 0);
    const before = armed.length;
    await farm.engine.call('settings.set', { key: 'probe_interval_s', value: 7.3 });
    // Each workstation's next probe is armed with it, and so is the farm's next settings check.
    await farm.waitFor(
      'both probe loops and the settings check to use 7.3 s',
      () => armed.slice(before).filter(near).length >= 3 && armed.slice(before).includes(7_300),
      5_000,
    );
  } finally {
    await farm.close();
  }
});

test('a changed output_root is where the next job is written; files in the folder before stay servable', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{}] });
  const [a] = await farm.importJobs([{ id: 'before' }]);
  await farm.waitForStates([a!], ['completed']);
  const elsewhere = join(farm.dir, 'elsewhere');
  mkdirSync(elsewhere);
  await farm.engine.call('settings.set', { key: 'output_root', value: elsewhere });
  const [b] = await farm.importJobs([{ id: 'after' }]);
  await farm.waitForStates([b!], ['completed']);
  const { rows } = await farm.engine.call('assets.list', {});
  const of = (jobId: string) => rows.find((r) => r.jobId === jobId)!;
  assert.ok(of(a!).path.startsWith(join(farm.dir, 'out')), of(a!).path);
  assert.ok(of(b!).path.startsWith(elsewhere), of(b!).path);
  for (const asset of [of(a!), of(b!)])
    assert.equal((await farm.engine.call('assets.file', { id: asset.id })).ok, true, asset.path);
});
