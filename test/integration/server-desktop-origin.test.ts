/**
 * The desktop app in studio mode is a page from the app's own files (Origin null): the server lets
 * it in only where a token is required and presented, answers its CORS preflights, and makes its
 * answers readable; a server without a token (loopback) still refuses it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startServer } from '../../electron/server/server.js';
import WebSocket from 'ws';
import { makeEngine } from '../helpers/engine.js';
import { addPerson, ticketFor } from '../helpers/people.js';

function raw(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown> }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test("a studio-mode desktop page (Origin null) is answered with CORS when it presents the farm's token, refused without it", async (ctx) => {
  const t = await makeEngine({ templates: false });
  const server = await startServer({ engine: t.engine, token: 'tok-123' });
  ctx.after(async () => {
    await server.close();
    await t.close();
  });
  const json = { 'content-type': 'application/json' };
  const pre = await raw(server.url, 'OPTIONS', '/api/call/farm.status', {
    origin: 'null',
    'access-control-request-method': 'POST',
  });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers['access-control-allow-origin'], 'null');
  assert.match(String(pre.headers['access-control-allow-headers']), /authorization/);
  const ok = await raw(
    server.url,
    'POST',
    '/api/call/farm.status',
    { ...json, origin: 'null', authorization: 'Bearer tok-123' },
    '{}',
  );
  assert.equal(ok.status, 200);
  assert.equal(ok.headers['access-control-allow-origin'], 'null');
  const noToken = await raw(server.url, 'POST', '/api/call/farm.status', { ...json, origin: 'null' }, '{}');
  assert.equal(noToken.status, 401);
  const otherSite = await raw(
    server.url,
    'POST',
    '/api/call/farm.status',
    { ...json, origin: 'http://evil.example', authorization: 'Bearer tok-123' },
    '{}',
  );
  assert.equal(otherSite.status, 403);
  assert.equal(otherSite.headers['access-control-allow-origin'], undefined);
});

test('without a token (loopback), a page with Origin null is refused and gets no CORS answer', async (ctx) => {
  const t = await makeEngine({ templates: false });
  const server = await startServer({ engine: t.engine });
  ctx.after(async () => {
    await server.close();
    await t.close();
  });
  const r = await raw(
    server.url,
    'POST',
    '/api/call/farm.status',
    { 'content-type': 'application/json', origin: 'null' },
    '{}',
  );
  assert.equal(r.status, 403);
  assert.equal(r.headers['access-control-allow-origin'], undefined);
});

/** Opens the event socket as the desktop page does (a ticket in the query, Origin null); the status it got. */
function openEvents(url: string, query: string, origin: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/api/events${query}`, { headers: { origin } });
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    ws.once('error', reject);
  });
}

test("with people defined, the desktop page's event socket opens on a ticket for a personal token (Origin null) and not without one", async (ctx) => {
  const t = await makeEngine({ templates: false });
  const server = await startServer({ engine: t.engine });
  ctx.after(async () => {
    await server.close();
    await t.close();
  });
  const token = await addPerson(t.engine, 'ana', 'artist');
  const ticket = async () => `?ticket=${await ticketFor(server.url, token, 'socket')}`;
  assert.equal(await openEvents(server.url, await ticket(), 'null'), 101, 'Origin null + a ticket for a valid token');
  assert.equal(await openEvents(server.url, await ticket(), 'file://'), 101, 'Origin file:// + a ticket');
  assert.equal(await openEvents(server.url, '', 'null'), 401, 'no token');
  assert.equal(await openEvents(server.url, '?ticket=wrong-ticket-000', 'null'), 401, 'a wrong ticket');
  assert.equal(
    await openEvents(server.url, `?token=${encodeURIComponent(token)}`, 'null'),
    401,
    'the token itself in the address',
  );
  assert.equal(
    await openEvents(server.url, await ticket(), 'http://evil.example'),
    403,
    'another site, even with a ticket',
  );
});
