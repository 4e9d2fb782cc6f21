/**
 * A browser's sign-in over a real serve (/api/session): the refusals say which of missing, not
 * valid, revoked; a sign-in sets an HttpOnly, SameSite=Strict cookie (Secure behind https) that then
 * authenticates calls, files and the events socket without a token in any URL; a change made on the
 * cookie needs the CSRF header and a page of another origin is refused; signing out clears it; and
 * 1,000 wrong guesses from one address take at least the time the docs promise while a valid token
 * from that address passes throughout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startServer, type RunningServer } from '../../electron/server/server.js';
import { BACKOFF_DEFAULTS } from '../../electron/server/bad-token-backoff.js';
import { makeEngine } from '../helpers/engine.js';
import { addPerson, callAs } from '../helpers/people.js';

const CSRF = { 'x-shotfarm-request': '1' };

async function signIn(
  server: RunningServer,
  token: string,
  headers: Record<string, string> = CSRF,
): Promise<{ status: number; cookie: string | null; body: { error?: { details?: { reason?: string } } } }> {
  const res = await fetch(`${server.url}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ token }),
  });
  return { status: res.status, cookie: res.headers.get('set-cookie'), body: (await res.json()) as never };
}

/** The cookie pair a browser would send back (`name=value`), from a Set-Cookie answer. */
function pair(setCookie: string | null): string {
  assert.ok(setCookie, 'a cookie was set');
  return setCookie.split(';')[0] ?? '';
}

test('sign-in: refusals name missing, not valid and revoked; a valid token sets an HttpOnly SameSite=Strict cookie that authenticates calls, files and the socket', async () => {
  const t = await makeEngine();
  const server = await startServer({ engine: t.engine });
  try {
    const token = await addPerson(t.engine, 'mira', 'lead');
    const old = await addPerson(t.engine, 'gone', 'artist');
    await t.engine.call('users.revoke', { name: 'gone' });

    const reason = async (cookie: string | null) => {
      const res = await fetch(`${server.url}/api/session`, { headers: cookie ? { cookie } : {} });
      return {
        status: res.status,
        reason: ((await res.json()) as { error?: { details?: { reason?: string } } }).error?.details?.reason,
      };
    };
    assert.deepEqual(await reason(null), { status: 401, reason: 'missing' });
    const wrong = await signIn(server, 'sft_not-a-token');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error?.details?.reason, 'unknown');
    assert.equal(wrong.cookie, null, 'no cookie for a wrong token');
    const revoked = await signIn(server, old);
    assert.equal(revoked.body.error?.details?.reason, 'revoked');

    const ok = await signIn(server, token);
    assert.equal(ok.status, 200);
    assert.match(ok.cookie ?? '', /HttpOnly/);
    assert.match(ok.cookie ?? '', /SameSite=Strict/);
    assert.match(ok.cookie ?? '', /Path=\//);
    assert.doesNotMatch(ok.cookie ?? '', /Secure/, 'plain http on loopback: a Secure cookie would never come back');
    const cookie = pair(ok.cookie);
    assert.deepEqual(await reason(cookie), { status: 200, reason: undefined });

    // Calls, an export download and the events socket, by the cookie alone.
    const call = await fetch(`${server.url}/api/call/farm.status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, ...CSRF },
      body: '{}',
    });
    assert.equal(call.status, 200);
    const csv = await fetch(`${server.url}/api/export/runlog`, { headers: { cookie } });
    assert.equal(csv.status, 200);
    await csv.arrayBuffer();
    const opened = await new Promise<'open' | number>((resolve) => {
      const ws = new WebSocket(`${server.url.replace('http', 'ws')}/api/events`, {
        headers: { cookie, origin: server.url },
      });
      ws.on('open', () => (ws.close(), resolve('open')));
      ws.on('unexpected-response', (_q, r) => resolve(r.statusCode ?? 0));
      ws.on('error', () => resolve(0));
    });
    assert.equal(opened, 'open');

    // Revoked: the cookie is refused with its reason.
    await t.engine.call('users.revoke', { name: 'mira' });
    assert.deepEqual(await reason(cookie), { status: 401, reason: 'revoked' });

    // Behind a TLS proxy the cookie is Secure.
    await t.engine.call('users.token', { name: 'gone' });
    const behindTls = await signIn(server, (await t.engine.call('users.token', { name: 'gone' })).token, {
      ...CSRF,
      'x-forwarded-proto': 'https',
    });
    assert.match(behindTls.cookie ?? '', /; Secure/);
  } finally {
    await server.close();
    await t.close();
  }
});

test('a change made with the sign-in cookie needs the CSRF header; another origin is refused; sign-out clears the cookie; the Bearer header needs neither', async () => {
  const t = await makeEngine();
  const server = await startServer({ engine: t.engine });
  try {
    const token = await addPerson(t.engine, 'otto', 'operator');
    const cookie = pair((await signIn(server, token)).cookie);
    const pause = (headers: Record<string, string>) =>
      fetch(`${server.url}/api/call/farm.pause`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });

    const forged = await pause({ cookie });
    assert.equal(forged.status, 403, 'a form of another site could send this (if a browser sent the cookie): refused');
    assert.match(((await forged.json()) as { error: { message: string } }).error.message, /x-shotfarm-request/);
    const otherOrigin = await pause({ cookie, ...CSRF, origin: 'http://evil.example' });
    assert.equal(otherOrigin.status, 403);
    assert.equal((await t.engine.call('farm.status', {})).farmState.state, 'running', 'nothing changed');
    assert.equal((await pause({ cookie, ...CSRF })).status, 200);
    assert.equal(
      (await callAs(server.url, token, 'farm.resume', {})).status,
      200,
      'scripts with the header token need no CSRF header',
    );
    assert.equal(
      (await signIn(server, token, {})).status,
      403,
      'another site cannot sign a browser in (no CSRF header)',
    );

    const out = await fetch(`${server.url}/api/session`, { method: 'DELETE', headers: { cookie, ...CSRF } });
    assert.equal(out.status, 200);
    assert.match(out.headers.get('set-cookie') ?? '', /Max-Age=0/);
    assert.equal(
      (await fetch(`${server.url}/api/session`, { method: 'DELETE', headers: { cookie } })).status,
      403,
      'nor sign it out',
    );
  } finally {
    await server.close();
    await t.close();
  }
});

test("a farm without people has no one to sign in as: the sign-in answers 404 and the page keeps today's rules", async () => {
  const t = await makeEngine();
  const server = await startServer({ engine: t.engine });
  try {
    const res = await signIn(server, 'sft_whatever');
    assert.equal(res.status, 404);
    const probe = await fetch(`${server.url}/api/session`);
    assert.deepEqual(await probe.json(), { people: false, person: null });
    assert.equal((await callAs(server.url, null, 'farm.status', {})).status, 200, 'the loopback operator, as before');
  } finally {
    await server.close();
    await t.close();
  }
});

/** The least total wait the documented schedule imposes on `n` wrong tokens from one address. */
function promisedMs(n: number, o = BACKOFF_DEFAULTS): number {
  let total = 0;
  for (let failure = o.free + 1; failure < n; failure++)
    total += Math.min(o.maxMs, o.baseMs * 2 ** (failure - o.free - 1));
  return total;
}

test('1,000 wrong guesses from one address take at least the documented time (5 free, then 1 s doubling to a minute); a valid token from it passes throughout', {
  timeout: 120_000,
}, async () => {
  const t = await makeEngine();
  // The shipped schedule, on the engine's manual clock: the waits are counted, not slept.
  const server = await startServer({ engine: t.engine });
  try {
    const valid = await addPerson(t.engine, 'ops1', 'operator');
    const start = t.clock.now();
    let guesses = 0;
    let slowed = 0;
    const validStatuses: number[] = [];
    while (guesses < 1_000) {
      const res = await fetch(`${server.url}/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...CSRF },
        body: JSON.stringify({ token: `sft_guess${guesses}` }),
      });
      await res.arrayBuffer();
      if (res.status === 429) {
        // The guesser is told to wait: it may guess again only after Retry-After.
        slowed++;
        t.clock.advance(Number(res.headers.get('retry-after')) * 1000);
      } else {
        assert.equal(res.status, 401);
        guesses++;
      }
      if ((guesses + slowed) % 25 === 0)
        validStatuses.push((await callAs(server.url, valid, 'farm.status', {})).status);
    }
    const took = t.clock.now() - start;
    assert.ok(
      took >= promisedMs(1_000),
      `1,000 guesses took ${took} ms of the clock; the docs promise at least ${promisedMs(1_000)} ms`,
    );
    // About 16 hours: a minute per guess once past the doubling.
    assert.ok(promisedMs(1_000) > 15 * 3600_000);
    assert.ok(slowed > 900, 'the guesser was told to wait before nearly every guess');
    assert.ok(validStatuses.length > 30);
    assert.deepEqual(
      validStatuses.filter((s) => s !== 200),
      [],
      'the valid token passed every time, closed address or not',
    );
  } finally {
    await server.close();
    await t.close();
  }
});
