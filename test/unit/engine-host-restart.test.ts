import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ShotfarmError } from '../../shared/errors.js';
import { EngineHost, type EngineHostOptions } from '../../electron/main/engine-host.js';
import { restartDelay } from '../../electron/main/restart-policy.js';
import { FakeTime } from '../helpers/fake-time.js';
import { fakeSpawner } from './engine-host-fakes.js';

function startedHost(over: Partial<EngineHostOptions> = {}) {
  const time = new FakeTime();
  const sp = fakeSpawner();
  const host = new EngineHost({
    spawn: sp.spawn,
    timers: time,
    clock: time,
    backoff: { initialMs: 500, maxMs: 8_000 },
    ...over,
  });
  const restarted: { restarts: number; reason: string }[] = [];
  const failed: unknown[] = [];
  host.on('restarted', (n) => restarted.push(n));
  host.on('failed', (e) => failed.push(e));
  host.start();
  return { host, time, sp, restarted, failed };
}

const isRetryableUnavailable = (err: unknown): boolean =>
  err instanceof ShotfarmError && err.code === 'unavailable' && err.retryable;

test('a crash fails the calls in flight with a retryable envelope and a new engine is started after the backoff', async () => {
  const { host, time, sp } = startedHost();
  sp.last().ready();
  const inflight = host.call('jobs.hold', { ids: ['00000000-0000-4000-8000-000000000000'] });
  sp.last().crash(134);
  await assert.rejects(inflight, isRetryableUnavailable);
  assert.equal(host.status, 'backoff');
  assert.equal(sp.children.length, 1);
  time.advance(499);
  assert.equal(sp.children.length, 1);
  time.advance(1);
  assert.equal(sp.children.length, 2);
  assert.equal(host.restarts, 1);
});

test('the restarted notice is emitted once the new engine is ready, with the counter and the reason', () => {
  const { time, sp, restarted } = startedHost();
  sp.last().ready();
  assert.deepEqual(restarted, []);
  sp.last().crash(134);
  time.advance(500);
  assert.deepEqual(restarted, []);
  sp.last().ready();
  assert.deepEqual(restarted, [{ restarts: 1, reason: 'it exited with code 134' }]);
});

test('calls made while the engine restarts wait for the new engine instead of failing', async () => {
  const { host, time, sp } = startedHost();
  sp.last().ready();
  sp.last().crash();
  const waiting = host.call('farm.status', {});
  time.advance(500);
  sp.last().ready();
  const sent = sp.last().calls();
  assert.equal(sent.length, 1);
  sp.last().say({ id: sent[0]?.id, ok: true, result: 'after restart' });
  assert.equal(await waiting, 'after restart');
});

test('repeated crashes back off exponentially up to the cap', () => {
  const { time, sp } = startedHost({ maxConsecutiveCrashes: 20 });
  const delays: number[] = [];
  for (let i = 0; i < 7; i++) {
    sp.last().crash();
    const [delay] = time.waiting().filter((ms) => ms !== 60_000);
    delays.push(delay ?? -1);
    time.advance(delay ?? 0);
  }
  assert.deepEqual(delays, [500, 1000, 2000, 4000, 8000, 8000, 8000]);
  assert.equal(sp.children.length, 8);
});

test('an engine that stayed up long enough starts a fresh streak: its crash waits the initial delay again', () => {
  const { time, sp } = startedHost();
  for (let i = 0; i < 3; i++) {
    sp.last().crash();
    time.advance(10_000);
  }
  sp.last().ready();
  time.advance(60_000);
  sp.last().crash();
  assert.deepEqual(
    time.waiting().filter((ms) => ms !== 60_000),
    [500],
  );
});

test('after too many crashes in a row the host gives up: calls fail for good and the failure is reported', async () => {
  const { host, time, sp, failed } = startedHost({ maxConsecutiveCrashes: 3 });
  const queued = host.call('farm.status', {});
  for (let i = 0; i < 4; i++) {
    sp.last().crash(1);
    time.advance(10_000);
  }
  assert.equal(sp.children.length, 4);
  assert.equal(host.status, 'failed');
  assert.equal(failed.length, 1);
  const notRetryable = (err: unknown) =>
    err instanceof ShotfarmError && !err.retryable && /3 times in a row/.test(err.message);
  await assert.rejects(queued, notRetryable);
  await assert.rejects(host.call('farm.status', {}), notRetryable);
  time.advance(600_000);
  assert.equal(sp.children.length, 4);
});

test('a non-retryable fatal report (an edited migration) is not restarted: its message reaches every caller', async () => {
  const { host, time, sp, failed } = startedHost();
  const queued = host.call('farm.status', {});
  const fatal = { code: 'storage', message: 'Migration 0001 was edited after it was applied.', retryable: false };
  sp.last().say({ fatal });
  sp.last().crash(3);
  time.advance(600_000);
  assert.equal(sp.children.length, 1);
  assert.deepEqual(failed, [fatal]);
  await assert.rejects(
    queued,
    (err: unknown) => err instanceof ShotfarmError && err.message === fatal.message && err.code === 'storage',
  );
});

test('a retryable fatal report is handled as a crash: restarted after the backoff, with its message as the reason', () => {
  const { time, sp, restarted } = startedHost();
  sp.last().say({ fatal: { code: 'storage', message: 'The disk is full.', retryable: true } });
  sp.last().crash(3);
  time.advance(500);
  assert.equal(sp.children.length, 2);
  sp.last().ready();
  assert.deepEqual(restarted, [{ restarts: 1, reason: 'The disk is full.' }]);
});

test('an engine that never says ready is killed after the ready timeout and restarted', () => {
  const { time, sp } = startedHost({ readyTimeoutMs: 10_000 });
  time.advance(10_000);
  assert.equal(sp.children[0]?.killed, true);
  sp.last().crash(143);
  time.advance(500);
  assert.equal(sp.children.length, 2);
});

test('messages from a replaced engine are ignored', async () => {
  const { host, time, sp } = startedHost();
  sp.last().ready();
  const old = sp.last();
  old.crash();
  time.advance(500);
  sp.last().ready();
  const answer = host.call('farm.status', {});
  const id = sp.last().calls()[0]?.id;
  old.say({ id, ok: true, result: 'from the dead' });
  sp.last().say({ id, ok: true, result: 'from the living' });
  assert.equal(await answer, 'from the living');
});

test('a spawn that throws counts as a crash and is retried with backoff', () => {
  const time = new FakeTime();
  let attempts = 0;
  const sp = fakeSpawner();
  const host = new EngineHost({
    timers: time,
    clock: time,
    spawn: () => {
      attempts += 1;
      if (attempts < 3) throw new Error('EAGAIN');
      return sp.spawn();
    },
  });
  host.start();
  time.advance(500);
  time.advance(1000);
  assert.equal(attempts, 3);
  assert.equal(host.status, 'starting');
});

test('restartDelay doubles from the initial delay and never exceeds the cap', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 10, 1000].map((n) => restartDelay(n, { initialMs: 250, maxMs: 5_000 })),
    [250, 500, 1000, 2000, 5000, 5000],
  );
  assert.equal(restartDelay(0), 500);
  assert.equal(restartDelay(Number.MAX_SAFE_INTEGER), 30_000);
});
