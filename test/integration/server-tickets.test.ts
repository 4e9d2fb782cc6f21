/**
 * Short-lived tickets instead of a token in an address (issue 25 item 8), over a real serve on
 * loopback: a long-lived token in the query string is refused on every route with words saying
 * what to send instead; a socket ticket opens the events socket once and ends after a minute; a
 * files ticket opens file links and downloads, never a call or the socket; a revoked person's
 * tickets stop working; a ticket cannot buy another; and the token-holding client (the desktop
 * app's studio transport, a shared-token tab) builds its socket and file links without the token.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { JobNotifier } from '../../electron/main/notifications.js';
import { followStudioNotices } from '../../electron/main/studio-notices.js';
import { startServer, type RunningServer } from '../../electron/server/server.js';
import { createWsClient } from '../../renderer/client/ws-transport.js';
import { makeEngine, type TestEngine } from '../helpers/engine.js';
import { startFarm } from '../helpers/farm.js';
import { addPerson, ticketFor } from '../helpers/people.js';
import { nextValue } from '../helpers/wait.js';

/** Opens the events socket with this query; 'open' or the status it was refused with. */
function openSocket(base: string, query: string): Promise<'open' | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/api/events${query}`);
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    ws.on('error', () => resolve(0));
  });
}

async function status(url: string, init: RequestInit = {}): Promise<{ status: number; message: string }> {
  const res = await fetch(url, init);
  const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  return { status: res.status, message: body?.error?.message ?? '' };
}

async function peopleServer(ctx: { after: (fn: () => Promise<void>) => void }): Promise<{
  t: TestEngine;
  server: RunningServer;
  token: string;
}> {
  const t = await makeEngine({ templates: false });
  const server = await startServer({ engine: t.engine });
  ctx.after(async () => {
    await server.close();
    await t.close();
  });
  return { t, server, token: await addPerson(t.engine, 'otto', 'operator') };
}

test('a valid personal token in the address is refused on calls, info, files, exports, the session and the socket, in words naming the header, the cookie or a ticket', async (ctx) => {
  const { server, token } = await peopleServer(ctx);
  const q = `token=${encodeURIComponent(token)}`;
  const json = { 'content-type': 'application/json' };
  const refused = [
    await status(`${server.url}/api/call/farm.status?${q}`, { method: 'POST', headers: json, body: '{}' }),
    await status(`${server.url}/api/info?${q}`),
    await status(`${server.url}/files/asset/abc?${q}`),
    await status(`${server.url}/api/export/runlog?${q}`),
    await status(`${server.url}/api/session?${q}`),
  ];
  for (const r of refused) {
    assert.equal(r.status, 401);
    assert.match(r.message, /not accepted.*Authorization: Bearer.*sign in.*ticket/);
  }
  assert.equal(await openSocket(server.url, `?${q}`), 401, 'the events socket');
  // Beside a valid header too: the token already travelled in the address.
  const both = await status(`${server.url}/api/call/farm.status?${q}`, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${token}` },
    body: '{}',
  });
  assert.equal(both.status, 401);
  // The page load of the printed address stays: the page takes the token out of the address itself.
  assert.notEqual((await fetch(`${server.url}/?${q}`)).status, 401);
});

test('a socket ticket opens the events socket once; an unused one ends after a minute', async (ctx) => {
  const { t, server, token } = await peopleServer(ctx);
  const ticket = await ticketFor(server.url, token, 'socket');
  assert.equal(await openSocket(server.url, `?ticket=${ticket}`), 'open');
  assert.equal(await openSocket(server.url, `?ticket=${ticket}`), 401, 'spent by its first use');
  const late = await ticketFor(server.url, token, 'socket');
  t.clock.advance(60_000);
  assert.equal(await openSocket(server.url, `?ticket=${late}`), 401, 'a minute later');
  assert.equal(await openSocket(server.url, `?ticket=${await ticketFor(server.url, token, 'socket')}`), 'open');
});

test('a files ticket opens file links and downloads many times for five minutes, never a call, the socket or another ticket', async (ctx) => {
  const { t, server, token } = await peopleServer(ctx);
  const files = await ticketFor(server.url, token, 'files');
  for (let i = 0; i < 2; i++) {
    assert.equal((await fetch(`${server.url}/api/export/runlog?ticket=${files}`)).status, 200, 'an operator downloads');
    // Let in: the asset is not there, which only a caller who got in is told.
    assert.equal((await fetch(`${server.url}/files/asset/nope?ticket=${files}`)).status, 404);
  }
  const call = await status(`${server.url}/api/call/farm.status?ticket=${files}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(call.status, 401);
  assert.match(call.message, /only the events socket and file links/);
  assert.equal(await openSocket(server.url, `?ticket=${files}`), 401, 'a files ticket is not a socket ticket');
  const another = await status(`${server.url}/api/ticket?ticket=${files}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"for":"files"}',
  });
  assert.equal(another.status, 401, 'a ticket does not buy its successor');
  t.clock.advance(5 * 60_000);
  const ended = await status(`${server.url}/api/export/runlog?ticket=${files}`);
  assert.equal(ended.status, 401);
  assert.match(ended.message, /expired/);
});

test("a revoked person's tickets stop working, and their socket ticket asked before the revocation opens nothing", async (ctx) => {
  const { t, server, token } = await peopleServer(ctx);
  const socket = await ticketFor(server.url, token, 'socket');
  const files = await ticketFor(server.url, token, 'files');
  assert.equal((await fetch(`${server.url}/api/export/runlog?ticket=${files}`)).status, 200);
  await t.engine.call('users.revoke', { name: 'otto' });
  const refused = await status(`${server.url}/api/export/runlog?ticket=${files}`);
  assert.equal(refused.status, 401);
  assert.equal(await openSocket(server.url, `?ticket=${socket}`), 401);
  await assert.rejects(ticketFor(server.url, token, 'files'), /401/, 'nor can a revoked token ask for a new one');
});

test('asking for a ticket: POST with {"for": "socket" | "files"} and a token in the header; anything else is refused in words', async (ctx) => {
  const { server, token } = await peopleServer(ctx);
  const auth = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const bad = await status(`${server.url}/api/ticket`, { method: 'POST', headers: auth, body: '{"for":"api"}' });
  assert.equal(bad.status, 400);
  assert.match(bad.message, /"for": "socket"/);
  assert.equal((await status(`${server.url}/api/ticket`, { headers: auth })).status, 405);
  const none = await status(`${server.url}/api/ticket`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"for":"files"}',
  });
  assert.equal(none.status, 401);
  const res = await fetch(`${server.url}/api/ticket`, { method: 'POST', headers: auth, body: '{"for":"files"}' });
  const answer = (await res.json()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(answer).sort(), ['expiresInS', 'for', 'ticket']);
  assert.equal(answer.expiresInS, 300);
  assert.ok(!String(answer.ticket).includes(token));
});

test('the token-holding client (desktop studio mode, a shared-token tab) opens its socket and loads files and exports by ticket: no URL it asks for carries the token', {
  timeout: 60_000,
}, async (ctx) => {
  const farm = await startFarm({ instances: [{ duration: { fixedMs: 50 } }], config: { prefetch: false } });
  ctx.after(() => farm.close());
  const server = await startServer({ engine: farm.engine, token: 'shared-token-of-this-farm' });
  ctx.after(() => server.close());
  const ids = await farm.importJobs([{ id: 'sh010' }], 'Moonfall', 'ep101');
  await farm.waitForStates(ids, ['completed'], 30_000);
  const asset = (await farm.engine.call('assets.list', {})).rows[0];
  assert.ok(asset, 'the job left an output');

  // Every address the client asks for, as a page's network panel would list them.
  const urls: string[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input: string | URL | Request, init?: RequestInit) => {
    urls.push(input instanceof Request ? input.url : String(input));
    return realFetch(input, init);
  };
  ctx.after(() => void (globalThis.fetch = realFetch));
  // The `ws` socket (a browser's interface) as the page's WebSocket, each address noted.
  const g = globalThis as unknown as { WebSocket: unknown };
  const before = g.WebSocket;
  g.WebSocket = class extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      urls.push(String(address));
      super(address, protocols);
      this.on('error', () => undefined);
    }
  };
  ctx.after(() => void (g.WebSocket = before));

  const client = createWsClient({ baseUrl: server.url, token: 'shared-token-of-this-farm', absoluteUrls: true });
  ctx.after(() => client.close());
  await client.linksReady;
  await nextValue<void>((deliver) => client.onConnection((s) => s === 'online' && deliver()), {
    what: 'the events socket to open on a ticket',
    timeoutMs: 10_000,
  });
  const fileUrl = client.assetUrl(asset.id) ?? '';
  assert.match(fileUrl, /^http:\/\/127\.0\.0\.1:\d+\/files\/asset\/[^?]+\?ticket=[A-Za-z0-9_-]{43}$/);
  const file = await fetch(fileUrl);
  assert.equal(file.status, 200, 'the thumbnail loads');
  assert.equal(Buffer.from(await file.arrayBuffer()).length, asset.bytes);
  const csv = await fetch(client.exportUrl('runlog', {}) ?? '');
  assert.equal(csv.status, 200, 'the download starts');
  await csv.text();
  await client.call('farm.status', {});

  assert.ok(
    urls.some((u) => /\/api\/events\?ticket=/.test(u)),
    `the socket was opened by ticket: ${urls.join(' ')}`,
  );
  const leaking = urls.filter((u) => u.includes('shared-token') || /[?&]token=/.test(u));
  assert.deepEqual(leaking, [], 'no URL carries the token');
});

test("the desktop shell's notification socket follows a studio farm with people by its Authorization header (no token in its address): a rush shot rendered is noticed", {
  timeout: 60_000,
}, async (ctx) => {
  const farm = await startFarm({ instances: [{ duration: { fixedMs: 300 } }], config: { prefetch: false } });
  ctx.after(() => farm.close());
  const token = await addPerson(farm.engine, 'mira', 'lead');
  const server = await startServer({ engine: farm.engine });
  ctx.after(() => server.close());
  const logged: string[] = [];
  const notices: string[] = [];
  let live = false;
  let noticed: (() => void) | null = null;
  const stop = followStudioNotices(
    { origin: server.url, token },
    new JobNotifier(),
    // Asked of every job event the socket brings: the first one says the socket is open.
    () => ((live = true), true),
    (n) => (notices.push(n.title), noticed?.()),
    (m) => logged.push(m),
  );
  ctx.after(stop);
  // Normal shots until one's events arrive (no notice for those), then the rush one.
  let n = 0;
  while (!live && n < 50) {
    await farm.importJobs([{ id: `warm${n++}` }], 'Moonfall', 'ep101');
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(live, 'the shell socket brought job events');
  await nextValue<void>(
    (deliver) => {
      noticed = deliver;
      void farm.importJobs([{ id: 'sh010', priority: 'rush' }], 'Moonfall', 'ep101');
    },
    { what: 'the rush notice over the shell socket', timeoutMs: 30_000 },
  );
  assert.deepEqual(notices, ['Rush shot rendered']);
  assert.deepEqual(logged, [], 'no refused socket');
});
