import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ComfyRequestError, failureFromError, settle } from '../../electron/engine/comfy/observation.js';
import { fullJitterDelay } from '../../electron/engine/comfy/backoff.js';

function coded(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

test('undici/Node error codes map to observation kinds', () => {
  const ctx = { timeoutMs: 1234 };
  assert.deepEqual(failureFromError(coded('ECONNREFUSED'), ctx), { kind: 'refused' });
  assert.deepEqual(failureFromError(coded('ECONNRESET'), ctx), { kind: 'reset' });
  assert.deepEqual(failureFromError(coded('UND_ERR_SOCKET', 'other side closed'), ctx), { kind: 'reset' });
  assert.deepEqual(failureFromError(coded('UND_ERR_HEADERS_TIMEOUT'), ctx), { kind: 'timeout', afterMs: 1234 });
  assert.deepEqual(failureFromError(coded('UND_ERR_BODY_TIMEOUT'), ctx), { kind: 'timeout', afterMs: 1234 });
  assert.deepEqual(failureFromError(new DOMException('x', 'TimeoutError'), ctx), { kind: 'timeout', afterMs: 1234 });
  assert.deepEqual(failureFromError(new DOMException('x', 'AbortError'), ctx), { kind: 'aborted' });
  assert.deepEqual(failureFromError(coded('ENOTFOUND', 'getaddrinfo ENOTFOUND x'), ctx), {
    kind: 'network',
    code: 'ENOTFOUND',
    message: 'getaddrinfo ENOTFOUND x',
  });
});

test('codes are found in the cause chain and inside AggregateError', () => {
  const ctx = { timeoutMs: 1 };
  const wrapped = new TypeError('fetch failed', { cause: coded('ECONNREFUSED') });
  assert.deepEqual(failureFromError(wrapped, ctx), { kind: 'refused' });
  const agg = new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')]);
  assert.deepEqual(failureFromError(agg, ctx), { kind: 'refused' });
});

test('which signal fired decides timeout vs aborted, whatever the error looks like', () => {
  const err = new DOMException('x', 'AbortError');
  assert.deepEqual(failureFromError(err, { timeoutMs: 50, timedOut: true }), { kind: 'timeout', afterMs: 50 });
  assert.deepEqual(failureFromError(coded('ECONNRESET'), { timeoutMs: 50, callerAborted: true }), { kind: 'aborted' });
});

test('settle turns ComfyRequestError into a failed result and rethrows bugs', async () => {
  const failed = await settle(() => Promise.reject(new ComfyRequestError({ kind: 'refused' }, 'GET /queue')));
  assert.deepEqual(failed, { ok: false, failure: { kind: 'refused' }, route: 'GET /queue' });
  assert.deepEqual(await settle(() => Promise.resolve(3)), { ok: true, value: 3 });
  await assert.rejects(
    settle(() => Promise.reject(new RangeError('bug'))),
    RangeError,
  );
});

test("ComfyRequestError message names the route and the status, never the answer's body", () => {
  const e = new ComfyRequestError(
    { kind: 'http', status: 500, body: null, bodyText: 'Server got itself in trouble' },
    'POST /prompt',
  );
  assert.equal(e.message, 'POST /prompt: HTTP 500');
  assert.equal(
    e.failure.kind === 'http' ? e.failure.bodyText : '',
    'Server got itself in trouble',
    'kept for code, not for words',
  );
});

test('full jitter backoff stays within [0, min(cap, base*2^n))', () => {
  const policy = { baseMs: 100, capMs: 1000 };
  assert.equal(
    fullJitterDelay(0, policy, () => 0.999999),
    99,
  );
  assert.equal(
    fullJitterDelay(2, policy, () => 0.5),
    200,
  );
  assert.equal(
    fullJitterDelay(10, policy, () => 0.5),
    500,
  ); // capped at 1000
  assert.equal(
    fullJitterDelay(5000, policy, () => 0.5),
    500,
  ); // no overflow to Infinity/NaN
  assert.equal(
    fullJitterDelay(3, policy, () => 0),
    0,
  );
});
