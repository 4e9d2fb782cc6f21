import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ShotfarmError } from '../../shared/errors.js';
import { EngineHost } from '../../electron/main/engine-host.js';
import { FakeTime } from '../helpers/fake-time.js';
import { fakeSpawner, flush } from './engine-host-fakes.js';

function startedHost() {
  const time = new FakeTime();
  const sp = fakeSpawner();
  const logs: string[] = [];
  const host = new EngineHost({ spawn: sp.spawn, timers: time, clock: time, log: (m) => logs.push(m) });
  host.start();
  return { host, time, sp, logs };
}

test('a call is forwarded to the engine as {id, method, input} and resolves with its answer', async () => {
  const { host, sp } = startedHost();
  sp.last().ready();
  const answer = host.call('farm.status', {});
  const [sent] = sp.last().calls();
  assert.deepEqual(sent, { id: sent?.id, method: 'farm.status', input: {} });
  sp.last().say({ id: sent?.id, ok: true, result: { dispatching: true } });
  assert.deepEqual(await answer, { dispatching: true });
});

test('an engine error comes back as a ShotfarmError carrying the same envelope', async () => {
  const { host, sp } = startedHost();
  sp.last().ready();
  const answer = host.call('jobs.get', { id: 'x' });
  const id = sp.last().calls()[0]?.id;
  sp.last().say({ id, ok: false, error: { code: 'not_found', message: 'Job x does not exist.', retryable: false } });
  await assert.rejects(answer, (err: unknown) => {
    assert.ok(err instanceof ShotfarmError);
    assert.deepEqual(err.envelope, { code: 'not_found', message: 'Job x does not exist.', retryable: false });
    return true;
  });
});

test('concurrent calls are matched to their answers by id, whatever the order of the answers', async () => {
  const { host, sp } = startedHost();
  sp.last().ready();
  const a = host.call('farm.status', {});
  const b = host.call('instances.list', {});
  const [ca, cb] = sp.last().calls();
  sp.last().say({ id: cb?.id, ok: true, result: 'b' });
  sp.last().say({ id: ca?.id, ok: true, result: 'a' });
  assert.deepEqual([await a, await b], ['a', 'b']);
});

test('calls made before the engine is ready wait and are sent once it says ready', async () => {
  const { host, sp } = startedHost();
  const answer = host.call('templates.list', {});
  assert.equal(sp.last().calls().length, 0);
  sp.last().ready();
  const sent = sp.last().calls();
  assert.equal(sent.length, 1);
  sp.last().say({ id: sent[0]?.id, ok: true, result: [] });
  assert.deepEqual(await answer, []);
});

test('engine events are forwarded to listeners with their topic and payload', () => {
  const { host, sp } = startedHost();
  const seen: unknown[] = [];
  host.on('event', (topic, payload) => seen.push([topic, payload]));
  sp.last().ready();
  sp.last().say({ event: 'instance.removed', payload: { id: 'gpu-1' } });
  sp.last().say({ event: 'jobs.bulkChanged', payload: { count: 300 } });
  assert.deepEqual(seen, [
    ['instance.removed', { id: 'gpu-1' }],
    ['jobs.bulkChanged', { count: 300 }],
  ]);
});

test('malformed engine messages and unknown topics are ignored and logged, never forwarded', async () => {
  const { host, sp, logs } = startedHost();
  const seen: unknown[] = [];
  host.on('event', (topic) => seen.push(topic));
  sp.last().ready();
  const answer = host.call('farm.status', {});
  const id = sp.last().calls()[0]?.id;
  sp.last().say({ event: 'debug.dump', payload: {} });
  sp.last().say({ id, ok: true, result: 1, extra: 'field' });
  sp.last().say('garbage');
  sp.last().say({ id, ok: false, error: { code: 'teapot', message: 'x', retryable: false } });
  assert.deepEqual(seen, []);
  assert.equal(logs.filter((l) => l.includes('malformed')).length, 4);
  sp.last().say({ id, ok: true, result: 'fine' });
  assert.equal(await answer, 'fine');
});

test('an answer for an unknown id is dropped without disturbing pending calls', async () => {
  const { host, sp } = startedHost();
  sp.last().ready();
  const answer = host.call('farm.status', {});
  const id = sp.last().calls()[0]?.id ?? 0;
  sp.last().say({ id: id + 1000, ok: true, result: 'stray' });
  let settled = false;
  void answer.then(() => (settled = true));
  await flush();
  assert.equal(settled, false);
  sp.last().say({ id, ok: true, result: 'mine' });
  assert.equal(await answer, 'mine');
});

test('a request the child cannot take (its channel is closing) fails retryable without being counted as sent', async () => {
  const { host, sp } = startedHost();
  sp.last().ready();
  await assert.rejects(
    host.call('farm.status', { f: () => 1 }),
    (err: unknown) => err instanceof ShotfarmError && err.code === 'unavailable' && err.retryable,
  );
  assert.equal(sp.last().calls().length, 0);
});

test('stop asks the engine to shut down, fails waiting calls, and does not restart it when it exits', async () => {
  const { host, sp, time } = startedHost();
  sp.last().ready();
  const pending = host.call('farm.status', {});
  const stopped = host.stop();
  assert.deepEqual(sp.last().posted.at(-1), { shutdown: true });
  await assert.rejects(
    pending,
    (err: unknown) => err instanceof ShotfarmError && err.code === 'unavailable' && !err.retryable,
  );
  sp.last().crash(0);
  await stopped;
  time.advance(120_000);
  assert.equal(sp.children.length, 1);
  assert.equal(host.status, 'stopped');
  await assert.rejects(
    host.call('farm.status', {}),
    (err: unknown) => err instanceof ShotfarmError && err.code === 'unavailable',
  );
});

test('stop kills an engine that does not exit within the stop timeout', async () => {
  const { host, sp, time } = startedHost();
  sp.last().ready();
  const stopped = host.stop();
  time.advance(5_000);
  assert.equal(sp.last().killed, true);
  sp.last().crash(143);
  await stopped;
  assert.equal(host.status, 'stopped');
});
