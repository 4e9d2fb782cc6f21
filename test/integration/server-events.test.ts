import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startServer } from '../../electron/server/server.js';
import { EventBatcher, type WireEvent } from '../../electron/engine/hosting/event-batcher.js';
import type { JobView } from '../../shared/domain.js';
import { makeEngine } from '../helpers/engine.js';

interface Batch { type: string; events?: WireEvent[] }

function until<T>(what: string, check: () => T | undefined, timeoutMs = 5_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + timeoutMs;
    const tick = () => {
      const v = check();
      if (v !== undefined) return resolve(v);
      if (Date.now() > deadline) return reject(new Error(`timed out waiting for ${what}`));
      setImmediate(tick);
    };
    tick();
  });
}

test('events reach the socket batched: progress coalesced per job, at most ~10 flushes a second', async () => {
  const t = await makeEngine({ templates: false });
  const s = await startServer({ engine: t.engine });
  const ws = new WebSocket(`${s.url.replace('http', 'ws')}/api/events`);
  const messages: Batch[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(d.toString()) as Batch));
  try {
    await until('hello', () => messages.find((m) => m.type === 'hello'));
    const started = Date.now();
    // A burst: 3 jobs × 200 progress frames, emitted across ~1 s.
    for (let round = 0; round < 10; round++) {
      for (let step = 0; step < 20; step++) {
        for (const jobId of ['a', 'b', 'c']) {
          t.engine.events.emit('job.progress', { jobId, progress: { node: '3', nodeType: 'KSampler', value: round * 20 + step + 1, max: 200, at: Date.now() } });
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const all = () => messages.filter((m) => m.type === 'events').flatMap((m) => m.events ?? []);
    const last = await until('the final progress of every job', () => {
      const latest = new Map<string, number>();
      for (const e of all()) if (e.topic === 'job.progress') latest.set(e.payload.jobId, e.payload.progress.value);
      return ['a', 'b', 'c'].every((id) => latest.get(id) === 200) ? latest : undefined;
    });
    const elapsedS = (Date.now() - started) / 1000;
    const flushes = messages.filter((m) => m.type === 'events').length;
    assert.equal(last.size, 3);
    assert.ok(flushes <= Math.ceil(elapsedS * 10) + 1, `${flushes} flushes in ${elapsedS.toFixed(2)} s`);
    for (const m of messages.filter((x) => x.type === 'events')) {
      const ids = (m.events ?? []).filter((e) => e.topic === 'job.progress').map((e) => (e.payload as { jobId: string }).jobId);
      assert.equal(new Set(ids).size, ids.length, 'one progress per job per batch');
    }
    assert.ok(all().length < 600 / 5, `600 frames became ${all().length} events`);
  } finally {
    ws.close();
    await s.close();
    await t.close();
  }
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
    await until('pong', () => replies.find((r) => r.includes('pong')));
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
  const b = new EventBatcher((e) => flushed.push(e), 100, { now: () => 0, setTimeout: (fn) => ((pending = fn), 1), clearTimeout: () => (pending = null) });
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
  assert.deepEqual(flushed[0]?.map((e) => e.topic), ['job.changed', 'job.changed', 'jobs.bulkChanged', 'instance.removed']);
  assert.equal((flushed[0]?.[1]?.payload as { job: JobView }).job.state, 'running');
  assert.equal((flushed[0]?.[2]?.payload as { count: number }).count, 500);
});
