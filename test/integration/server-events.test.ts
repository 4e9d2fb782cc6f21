import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { startServer } from '../../electron/server/server.js';
import { EventBatcher, type WireEvent } from '../../electron/engine/hosting/event-batcher.js';
import type { JobView } from '../../shared/domain.js';
import type { EventMap } from '../../shared/events.js';
import { makeEngine } from '../helpers/engine.js';
import { FakeTime } from '../helpers/fake-time.js';
import { waitUntil } from '../helpers/wait.js';

interface Batch {
  type: string;
  events?: WireEvent[];
}

const progress = (jobId: string, value: number): { topic: 'job.progress'; payload: EventMap['job.progress'] } => ({
  topic: 'job.progress',
  payload: { jobId, progress: { node: '3', nodeType: 'KSampler', value, max: 200, at: 0 } },
});

test('events reach the socket batched: a burst of progress arrives as the latest frame per job', async () => {
  const t = await makeEngine({ templates: false });
  const s = await startServer({ engine: t.engine });
  const ws = new WebSocket(`${s.url.replace('http', 'ws')}/api/events`);
  const messages: Batch[] = [];
  const arrived = new EventEmitter();
  ws.on('message', (d) => {
    messages.push(JSON.parse(d.toString()) as Batch);
    arrived.emit('message');
  });
  const wake = (recheck: () => void) => {
    arrived.on('message', recheck);
    return () => void arrived.off('message', recheck);
  };
  try {
    await waitUntil(() => messages.some((m) => m.type === 'hello'), { what: 'hello', wake });
    // A burst: 3 jobs × 200 progress frames, all before the batcher's timer can fire.
    for (let value = 1; value <= 200; value++) {
      for (const jobId of ['a', 'b', 'c']) t.engine.events.emit('job.progress', progress(jobId, value).payload);
    }
    const batches = await waitUntil(
      () => {
        const b = messages.filter((m) => m.type === 'events');
        return b.length > 0 ? b : null;
      },
      { what: 'the first batch', wake },
    );
    assert.equal(batches.length, 1, 'one flush for the whole burst');
    assert.deepEqual(
      batches[0]!.events,
      ['a', 'b', 'c'].map((id) => progress(id, 200)),
      '600 frames became the latest one of each job',
    );
  } finally {
    ws.close();
    await s.close();
    await t.close();
  }
});

test('the batcher flushes at most once per interval however fast events come, and the latest progress is never lost', () => {
  const time = new FakeTime();
  const flushes: { at: number; events: WireEvent[] }[] = [];
  const b = new EventBatcher((events) => flushes.push({ at: time.now(), events }), 100, time);
  // One simulated second: every 5 ms, a progress frame for each of three jobs.
  let value = 0;
  for (let at = 0; at < 1000; at += 5) {
    value++;
    for (const jobId of ['a', 'b', 'c']) b.push(progress(jobId, value));
    time.advance(5);
  }
  time.advance(100);
  assert.equal(flushes[0]?.at, 0, 'the first event of a quiet period goes out at once');
  const gaps = flushes.slice(1).map((f, i) => f.at - flushes[i]!.at);
  assert.ok(
    gaps.every((g) => g >= 100),
    `flushes ${JSON.stringify(flushes.map((f) => f.at))} come at most once per 100 ms`,
  );
  assert.equal(flushes.length, 11, 'the first at once, then one per interval until the frames stop');
  for (const f of flushes)
    assert.deepEqual(
      f.events.map((e) => (e.payload as EventMap['job.progress']).jobId),
      ['a', 'b', 'c'],
      'one progress per job per batch',
    );
  assert.deepEqual(
    flushes.at(-1)?.events,
    ['a', 'b', 'c'].map((id) => progress(id, value)),
  );
  b.close();
});

test('a client message other than ping closes the socket with 1008', async () => {
  const t = await makeEngine({ templates: false });
  const s = await startServer({ engine: t.engine });
  const ws = new WebSocket(`${s.url.replace('http', 'ws')}/api/events`);
  try {
    const replies: string[] = [];
    ws.on('message', (d) => replies.push(d.toString()));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ type: 'ping' }));
    await waitUntil(() => replies.some((r) => r.includes('pong')), { what: 'pong' });
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.send(JSON.stringify({ type: 'call', method: 'jobs.cancel' }));
    assert.equal(await closed, 1008);
  } finally {
    ws.terminate();
    await s.close();
    await t.close();
  }
});

test('the batcher keeps only the latest change per job and merges bulk counts', () => {
  const flushed: WireEvent[][] = [];
  let pending: (() => void) | null = null;
  const b = new EventBatcher((e) => flushed.push(e), 100, {
    now: () => 0,
    setTimeout: (fn) => ((pending = fn), 1),
    clearTimeout: () => (pending = null),
  });
  const job = (id: string, state: JobView['state']) => ({ id, state }) as JobView;
  b.push({ topic: 'job.changed', payload: { job: job('x', 'queued') } });
  b.push({ topic: 'job.changed', payload: { job: job('y', 'queued') } });
  b.push({ topic: 'job.changed', payload: { job: job('x', 'running') } });
  b.push({ topic: 'jobs.bulkChanged', payload: { count: 300 } });
  b.push({ topic: 'jobs.bulkChanged', payload: { count: 200 } });
  b.push({ topic: 'instance.changed', payload: { instance: { id: 'i1' } as never } });
  b.push({ topic: 'instance.removed', payload: { id: 'i1' } });
  assert.equal(flushed.length, 0, 'nothing is sent before the timer fires');
  (pending as unknown as () => void)();
  assert.equal(flushed.length, 1);
  assert.deepEqual(
    flushed[0]?.map((e) => e.topic),
    ['job.changed', 'job.changed', 'jobs.bulkChanged', 'instance.removed'],
  );
  assert.equal((flushed[0]![1]!.payload as { job: JobView }).job.state, 'running');
  assert.equal((flushed[0]![2]!.payload as { count: number }).count, 500);
});

test('with no client connected the headless server is no audience for the engine: it relays only while one is', async () => {
  const t = await makeEngine({ templates: false });
  const s = await startServer({ engine: t.engine });
  try {
    // Work done only to be shown (views of jobs other engines changed) is skipped without an audience (announcer.ts).
    assert.equal(t.engine.events.audience('job.changed'), false, 'serving, nobody connected');
    const ws = new WebSocket(`${s.url.replace('http', 'ws')}/api/events`);
    await new Promise((resolve) => ws.once('message', resolve));
    assert.equal(t.engine.events.audience('job.changed'), true, 'a client connected');
    ws.close();
    await waitUntil(() => !t.engine.events.audience('job.changed'), { what: 'the relay to stop with the last client' });
  } finally {
    await s.close();
    await t.close();
  }
});
