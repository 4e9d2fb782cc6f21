import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import WebSocket from 'ws';
import { startServer, type RunningServer } from '../../electron/server/server.js';
import { makeEngine } from '../helpers/engine.js';
import { ticketFor } from '../helpers/people.js';

function get(url: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens the events socket; resolves 'open' or the HTTP status it was refused with. */
function openSocket(url: string, query: string, headers: Record<string, string> = {}): Promise<'open' | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/api/events${query}`, { headers });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => resolve(0));
  });
}

async function withServer(
  opts: { host?: string; token?: string },
  fn: (s: RunningServer, local: string) => Promise<void>,
) {
  const t = await makeEngine({ templates: false });
  const s = await startServer({ engine: t.engine, ...opts });
  // Listening on all interfaces: reach it through loopback.
  const local = s.url.replace(/\/\/(0\.0\.0\.0|\[::\])/, '//127.0.0.1');
  try {
    await fn(s, local);
  } finally {
    await s.close();
    await t.close();
  }
}

test('off loopback a token is generated and required for API calls, info, files and events', async () => {
  await withServer({ host: '0.0.0.0' }, async (s, local) => {
    assert.ok(s.token && s.token.length >= 24, 'a token is generated');
    const host = new URL(local).host;
    assert.equal(await get(local, '/api/info', { host }), 401);
    assert.equal(await get(local, '/files/asset/abc', { host }), 401);
    assert.equal(await get(local, '/api/info', { host, authorization: 'Bearer wrong-token-wrong-token-xx' }), 401);
    assert.equal(await get(local, '/api/info', { host, authorization: `Bearer ${s.token}` }), 200);
    const call = await fetch(`${local}/api/call/farm.status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(call.status, 401);
    const authed = await fetch(`${local}/api/call/farm.status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${s.token}` },
      body: '{}',
    });
    assert.equal(authed.status, 200);
    assert.equal(await openSocket(local, ''), 401);
    assert.equal(await openSocket(local, '?ticket=nope'), 401);
    assert.equal(await openSocket(local, `?token=${s.token}`), 401, 'the token itself in the address');
    assert.equal(await openSocket(local, '', { authorization: `Bearer ${s.token}` }), 'open', 'the token in a header');
    assert.equal(await openSocket(local, `?ticket=${await ticketFor(local, s.token, 'socket')}`), 'open');
    // The app shell itself carries no data: it loads so the page can present the token.
    assert.notEqual(await get(local, '/', { host }), 401);
  });
});

test('a foreign Origin is refused for calls and for the events socket, even with the token', async () => {
  await withServer({ host: '0.0.0.0' }, async (s, local) => {
    const headers = {
      'content-type': 'application/json',
      authorization: `Bearer ${s.token}`,
      origin: 'http://evil.example',
    };
    const res = await fetch(`${local}/api/call/farm.status`, { method: 'POST', headers, body: '{}' });
    assert.equal(res.status, 403);
    const ticket = async () => `?ticket=${await ticketFor(local, s.token, 'socket')}`;
    assert.equal(await openSocket(local, await ticket(), { origin: 'http://evil.example' }), 403);
    const own = `http://${new URL(local).host}`;
    assert.equal(
      await openSocket(local, await ticket(), { origin: own }),
      'open',
      'the server’s own origin is accepted',
    );
  });
});

test('on loopback no token is needed, but a rebinding Host or a foreign Origin is refused', async () => {
  await withServer({}, async (s) => {
    assert.equal(s.token, null);
    assert.equal(await get(s.url, '/api/info'), 200);
    assert.equal(await get(s.url, '/api/info', { host: `evil.example:${new URL(s.url).port}` }), 403);
    assert.equal(await get(s.url, '/api/info', { origin: 'http://evil.example' }), 403);
    assert.equal(await openSocket(s.url, '', { origin: 'http://localhost:5173' }), 403);
    assert.equal(await openSocket(s.url, ''), 'open');
  });
});

test('a token given on loopback is enforced too', async () => {
  await withServer({ token: 'a-long-enough-token-for-this-test' }, async (s) => {
    assert.equal(await get(s.url, '/api/info'), 401);
    assert.equal(await get(s.url, '/api/info', { authorization: 'Bearer a-long-enough-token-for-this-test' }), 200);
    assert.equal(await get(s.url, '/api/info?token=a-long-enough-token-for-this-test'), 401, 'not in the address');
  });
});
