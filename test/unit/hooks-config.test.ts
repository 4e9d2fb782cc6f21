import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fullJitterDelay } from '../../electron/engine/comfy/backoff.js';
import { hookEventFor, hookSchema, hooksSchema, hookTarget } from '../../shared/hooks.js';
import { JOB_STATES } from '../../shared/job-states.js';

test('only completed, failed_final and timeout_kill notify hooks', () => {
  const table = Object.fromEntries(JOB_STATES.map((s) => [s, hookEventFor(s)]));
  assert.deepEqual(table, {
    pending: null,
    queued: null,
    running: null,
    completed: 'completed',
    failed_retryable: null,
    failed_final: 'failed',
    timeout_kill: 'failed',
    held: null,
    cancelled: null,
  });
});

test('a command hook is a program plus an argument list; a webhook is an http(s) URL', () => {
  assert.ok(
    hookSchema.safeParse({
      id: 'notify',
      on: ['completed'],
      kind: 'command',
      command: '/usr/bin/notify',
      args: ['--to', 'a b'],
    }).success,
  );
  assert.ok(
    hookSchema.safeParse({
      id: 'chat',
      on: ['failed'],
      kind: 'webhook',
      url: 'https://chat.example/hook/T0K3N',
      timeoutMs: 5000,
      retries: 0,
    }).success,
  );

  const refused: [string, unknown][] = [
    ['a command hook without a program', { id: 'a', on: ['completed'], kind: 'command' }],
    ['a command hook with a url', { id: 'a', on: ['completed'], kind: 'command', command: 'x', url: 'http://h' }],
    ['a webhook without a url', { id: 'a', on: ['completed'], kind: 'webhook' }],
    ['a webhook that is not http(s)', { id: 'a', on: ['completed'], kind: 'webhook', url: 'file:///etc/passwd' }],
    ['a webhook with args', { id: 'a', on: ['completed'], kind: 'webhook', url: 'http://h', args: ['x'] }],
    ['no event', { id: 'a', on: [], kind: 'command', command: 'x' }],
    ['an unknown event', { id: 'a', on: ['started'], kind: 'command', command: 'x' }],
    ['an id with a slash', { id: 'a/b', on: ['completed'], kind: 'command', command: 'x' }],
    ['an unknown kind', { id: 'a', on: ['completed'], kind: 'shell', command: 'rm -rf /' }],
    ['a zero timeout', { id: 'a', on: ['completed'], kind: 'command', command: 'x', timeoutMs: 0 }],
    ['negative retries', { id: 'a', on: ['completed'], kind: 'command', command: 'x', retries: -1 }],
  ];
  for (const [what, value] of refused) assert.equal(hookSchema.safeParse(value).success, false, what);
});

test('two hooks cannot share an id', () => {
  const h = { id: 'same', on: ['completed'], kind: 'command', command: 'x' };
  const r = hooksSchema.safeParse([h, { ...h }]);
  assert.equal(r.success, false);
  assert.deepEqual(
    r.error?.issues.map((i) => [i.path, i.message]),
    [[[1, 'id'], '"same" is used by another hook']],
  );
});

test('a webhook is shown by its origin only: its path may hold a token', () => {
  const h = hookSchema.parse({
    id: 'chat',
    on: ['failed'],
    kind: 'webhook',
    url: 'https://hooks.chat.example/services/T0/B0/s3cr3t',
  });
  assert.equal(hookTarget(h), 'https://hooks.chat.example/…');
  assert.equal(hookTarget(h, true), 'https://hooks.chat.example/services/T0/B0/s3cr3t');
  const c = hookSchema.parse({
    id: 'n',
    on: ['completed'],
    kind: 'command',
    command: '/opt/notify',
    args: ['--channel', 'my renders'],
  });
  assert.equal(hookTarget(c), '/opt/notify --channel "my renders"');
});

test('retry delays grow exponentially under a cap, scaled by the injected jitter', () => {
  const policy = { baseMs: 2000, capMs: 300_000 };
  assert.deepEqual(
    [0, 1, 2, 3, 10].map((n) => fullJitterDelay(n, policy, () => 0.5)),
    [1000, 2000, 4000, 8000, 150_000],
  );
  assert.equal(
    fullJitterDelay(1, policy, () => 0),
    0,
  );
});
