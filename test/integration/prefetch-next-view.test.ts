/**
 * A prompt sent ahead (prefetch) and waiting behind the running one has not started: the farm
 * counts it apart (`farm.status`'s `jobsNext`), its job view has no start and a not-started phase,
 * its Timeline bar no start — until ComfyUI starts it (`execution_start`), when all three say so.
 * Real simulator over loopback, real SQLite.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasStarted } from '../../shared/domain.js';
import { startFarm } from '../helpers/farm.js';

test('a prefetched prompt is next until it starts: counted apart, no start in its view or its Timeline bar, then started when ComfyUI says so', {
  timeout: 60_000,
}, async () => {
  const farm = await startFarm({ instances: [{ duration: { fixedMs: 2_500 } }], config: { prefetch: true } });
  try {
    const [first, second] = (await farm.importJobs([{ id: 'sh010' }, { id: 'sh020' }])) as [string, string];
    await farm.waitFor(
      'one rendering, one next',
      async () => {
        const s = await farm.engine.call('farm.status', {});
        return s.jobsByState.running === 2 && s.jobsNext === 1;
      },
      20_000,
    );
    const [a, b] = [await farm.job(first), await farm.job(second)];
    const [running, next] = a.attempt && hasStarted(a.attempt.phase) ? [a, b] : [b, a];
    assert.equal(next.state, 'running', 'claimed and sent: running in the store');
    assert.ok(next.attempt && !hasStarted(next.attempt.phase), `not started: ${next.attempt?.phase}`);
    assert.equal(next.startedAt, null, 'no start before it starts');
    assert.equal(typeof running.startedAt, 'number');
    assert.equal(running.startedAt, running.attempt?.startedAt, "the view's start is when the server started it");
    const now = Date.now();
    const bars = (await farm.engine.call('timeline.get', { from: now - 60_000, to: now + 1_000 })).bars;
    assert.equal(bars.find((x) => x.jobId === next.id)?.startedAt, null, 'its Timeline bar has no start');
    assert.equal(typeof bars.find((x) => x.jobId === running.id)?.startedAt, 'number');

    // The running one ends; ComfyUI starts the next: now it renders, with the start it got.
    await farm.waitFor(
      'the next one to start',
      async () => {
        const v = await farm.job(next.id);
        return v.state !== 'running' || (v.attempt !== null && hasStarted(v.attempt.phase));
      },
      20_000,
    );
    const started = await farm.job(next.id);
    if (started.state === 'running') {
      assert.ok(
        started.startedAt !== null && started.startedAt >= (running.startedAt as number) + 2_000,
        'it started after the first one ran',
      );
      assert.equal((await farm.engine.call('farm.status', {})).jobsNext, 0);
    }
    await farm.waitForStates([first, second], ['completed'], 20_000);
    const ended = (await farm.engine.call('timeline.get', { from: now - 60_000, to: Date.now() + 1_000 })).bars;
    const [barA, barB] = [ended.find((x) => x.jobId === running.id), ended.find((x) => x.jobId === next.id)];
    assert.ok(
      barA?.startedAt && barB?.startedAt && barB.startedAt >= barA.startedAt + 2_000,
      'stored starts: the second after the first ran',
    );
    assert.ok(barB.startedAt > barB.start, 'the second was sent before it started (it waited there)');
  } finally {
    await farm.close();
  }
});
