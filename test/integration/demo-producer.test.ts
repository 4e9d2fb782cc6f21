// The demo producer (electron/server/demo-producer.ts): batches of new shots on a timer, bounded,
// into the demo's own episodes, with scripted failures on the simulated GPUs; stops when closed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../electron/engine/clock.js';
import {
  startDemoProducer,
  type DemoProducerOptions,
  type ProducerTimer,
} from '../../electron/server/demo-producer.js';
import { DEMO_SAMPLES_DIR } from '../../electron/server/demo-farm.js';
import { makeEngine, type TestEngine } from '../helpers/engine.js';

/** A timer the test fires by hand: at most one tick is ever pending. */
class HandTimer implements ProducerTimer {
  pending: { fn: () => void; ms: number } | null = null;
  private armed: (() => void) | null = null;
  set(fn: () => void, ms: number): unknown {
    this.pending = { fn, ms };
    this.armed?.();
    return this.pending;
  }
  clear(handle: unknown): void {
    if (this.pending === handle) this.pending = null;
  }
  /** Fires the pending tick and resolves when the producer has armed the next one. */
  async fire(): Promise<void> {
    const p = this.pending;
    assert.ok(p, 'a tick is pending');
    this.pending = null;
    const rearmed = new Promise<void>((resolve) => {
      this.armed = resolve;
    });
    p.fn();
    await rearmed;
  }
}

class FakeGpu {
  scripts: string[][] = [];
  constructor(readonly name: string) {}
  setScript(words: string[]): void {
    this.scripts.push(words);
  }
}

async function withProducer(
  over: Partial<DemoProducerOptions>,
  fn: (ctx: {
    t: TestEngine;
    timer: HandTimer;
    gpus: FakeGpu[];
    logs: string[];
    p: Awaited<ReturnType<typeof startDemoProducer>>;
  }) => Promise<void>,
): Promise<void> {
  const t = await makeEngine();
  const timer = new HandTimer();
  const gpus = [new FakeGpu('demo-gpu-1'), new FakeGpu('demo-gpu-2')];
  const logs: string[] = [];
  const p = await startDemoProducer({
    engine: t.engine,
    gpus,
    baseDir: DEMO_SAMPLES_DIR,
    random: seededRandom(3),
    log: (l) => void logs.push(l),
    timer,
    ...over,
  });
  try {
    await fn({ t, timer, gpus, logs, p });
  } finally {
    p.close();
    await t.close();
  }
}

async function jobCount(
  t: TestEngine,
  states?: ('pending' | 'queued' | 'running' | 'failed_retryable')[],
): Promise<number> {
  return (await t.engine.call('jobs.list', { filter: states ? { states } : {}, limit: 1 })).total;
}

test('each tick imports a batch of 4–8 new shots into a demo episode, some with a motion stage', async () => {
  await withProducer({ maxWaiting: 1_000 }, async ({ t, p, logs }) => {
    let motion = 0;
    for (let i = 0; i < 6; i++) {
      const before = await jobCount(t);
      const r = await p.tick();
      assert.ok(r.shots >= 4 && r.shots <= 8, `batch of ${r.shots} shots`);
      assert.equal(r.episode, 'demo-01');
      assert.equal((await jobCount(t)) - before, r.added);
      assert.ok(r.added >= r.shots && r.added <= r.shots * 2);
      motion += r.added - r.shots;
    }
    assert.ok(motion > 0, 'some shots have a motion stage');
    const page = await t.engine.call('jobs.list', { limit: 1_000 });
    assert.ok(page.rows.every((j) => j.project === 'Moonfall' && j.episode === 'demo-01'));
    assert.ok(
      page.rows.some((j) => j.priority === 'rush'),
      'now and then a rush shot',
    );
    assert.equal(
      new Set(page.rows.map((j) => `${j.shot}/${j.stage}`)).size,
      page.rows.length,
      'no shot is produced twice',
    );
    assert.match(logs[0] ?? '', /^demo producer: \d+ jobs from \d+ shots into Moonfall\/demo-01/);
  });
});

test('a full episode rolls over to the next demo episode', async () => {
  await withProducer({ maxWaiting: 1_000, shotsPerEpisode: 10 }, async ({ p }) => {
    const episodes: string[] = [];
    for (let i = 0; i < 4; i++) episodes.push((await p.tick()).episode ?? '');
    assert.deepEqual([...new Set(episodes)].slice(0, 2), ['demo-01', 'demo-02']);
  });
});

test('the timer drives the ticks, one interval apart, and closing stops them', async () => {
  await withProducer({ intervalMs: 45_000 }, async ({ t, timer, p }) => {
    assert.equal(timer.pending?.ms, 45_000, 'the first batch comes one interval after start');
    assert.equal(await jobCount(t), 0);
    await timer.fire();
    const afterOne = await jobCount(t);
    assert.ok(afterOne >= 4);
    assert.equal(timer.pending?.ms, 45_000, 'the next tick is armed when this one ends');
    p.close();
    assert.equal(timer.pending, null, 'close clears the pending tick');
    assert.equal((await p.tick()).added, 0, 'a closed producer adds nothing');
    assert.equal(await jobCount(t), afterOne);
  });
});

test('no batch takes the waiting jobs past maxWaiting', async () => {
  await withProducer({ maxWaiting: 10 }, async ({ t, p }) => {
    const waiting = ['pending', 'queued', 'running', 'failed_retryable'] as const;
    for (let i = 0; i < 4; i++) {
      await p.tick();
      assert.ok((await jobCount(t, [...waiting])) <= 10);
    }
    const r = await p.tick();
    assert.equal(r.added, 0);
    assert.equal(r.limited, 'waiting');
  });
});

test('at maxTotalJobs the producer stops for good and says so', async () => {
  await withProducer({ maxWaiting: 1_000, maxTotalJobs: 12 }, async ({ t, p, logs }) => {
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await p.tick());
    assert.ok((await jobCount(t)) <= 12, 'never more jobs than the bound');
    assert.ok(
      results.some((r) => r.limited === 'total'),
      'the bound was reached',
    );
    assert.ok(logs.some((l) => /holds \d+ jobs \(limit 12\); adding no more shots/.test(l)));
    const total = await jobCount(t);
    assert.equal((await p.tick()).added, 0);
    assert.equal(await jobCount(t), total);
  });
});

test("failures are scripted into the simulated GPUs with the simulator's behaviour words", async () => {
  await withProducer({ maxWaiting: 1_000, failureChance: 1 }, async ({ gpus, p }) => {
    for (let i = 0; i < 8; i++) {
      const r = await p.tick();
      assert.ok(r.scripted, 'every tick scripts one at failureChance 1');
    }
    const scripts = gpus.flatMap((g) => g.scripts);
    assert.equal(scripts.length, 8);
    for (const s of scripts) {
      assert.ok(['oom', 'error', 'drop', '500', 'hang'].includes(s.at(-1)!), s.join(','));
      assert.ok(s.slice(0, -1).every((w) => w === 'ok'));
    }
  });
});
