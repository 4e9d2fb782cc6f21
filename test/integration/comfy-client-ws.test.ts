// PromptFollower against a throwaway `ws` server on a loopback port.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createServer, type IncomingMessage } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { PromptFollower, clientIdForAttempt } from '../../electron/engine/comfy/ws-follower.js';
import { ComfyRequestError } from '../../electron/engine/comfy/observation.js';
import type { FollowEvent } from '../../electron/engine/comfy/ws-events.js';

const PID = '8d0f2f7e-5c1a-5b53-9a51-0e0f4f0b2a11';
const OTHER = '11111111-2222-3333-4444-555555555555';

interface Conn {
  ws: WebSocket;
  clientId: string;
  origin: string | undefined;
}

const servers: WebSocketServer[] = [];
after(async () => {
  for (const s of servers) for (const c of s.clients) c.terminate();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

/** A WS server that hands each connection to the test, in order. */
async function wsServer(opts: { autoPong?: boolean } = {}) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', autoPong: opts.autoPong ?? true });
  servers.push(wss);
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const conns: Conn[] = [];
  const waiters: Array<(c: Conn) => void> = [];
  wss.on('connection', (ws: WebSocket, req: IncomingMessage) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const conn = { ws, clientId: url.searchParams.get('clientId') ?? '', origin: req.headers.origin };
    // First frame, as ComfyUI sends it.
    ws.send(
      JSON.stringify({ type: 'status', data: { status: { exec_info: { queue_remaining: 0 } }, sid: conn.clientId } }),
    );
    const w = waiters.shift();
    if (w) w(conn);
    else conns.push(conn);
  });
  return {
    wss,
    baseUrl: `http://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    next(): Promise<Conn> {
      const c = conns.shift();
      return c ? Promise.resolve(c) : new Promise((r) => waiters.push(r));
    },
  };
}

const send = (ws: WebSocket, type: string, data: unknown) => ws.send(JSON.stringify({ type, data }));

/**
 * Collects events until `stop` returns true for one (included) or the stream ends. Breaking out
 * of for-await closes the follower (the iterator's return()).
 */
async function collect(it: AsyncIterable<FollowEvent>, stop: (e: FollowEvent) => boolean): Promise<FollowEvent[]> {
  const out: FollowEvent[] = [];
  for await (const e of it) {
    out.push(e);
    if (stop(e)) break;
  }
  return out;
}

function fastFollower(baseUrl: string, extra: Partial<ConstructorParameters<typeof PromptFollower>[0]> = {}) {
  return new PromptFollower({
    baseUrl,
    promptId: PID,
    attemptId: 'a-17',
    random: () => 0, // zero backoff: reconnect immediately
    backoff: { baseMs: 10, capMs: 50 },
    giveUpAfterMs: 2_000,
    ...extra,
  });
}

test('clientIdForAttempt makes a new sf-<attempt>-<random> id on every call', () => {
  const a = clientIdForAttempt('a-17');
  const b = clientIdForAttempt('a-17');
  assert.match(a, /^sf-a-17-[0-9a-f]{12}$/);
  assert.notEqual(a, b);
});

test('ready() resolves once the socket is open; no Origin is sent; events are filtered to the prompt', async () => {
  const srv = await wsServer();
  const f = fastFollower(srv.baseUrl);
  await f.ready();
  const conn = await srv.next();
  assert.equal(f.clientId, conn.clientId);
  assert.match(conn.clientId, /^sf-a-17-/);
  assert.equal(conn.origin, undefined);

  send(conn.ws, 'execution_start', { prompt_id: OTHER, timestamp: 1 });
  send(conn.ws, 'progress', { value: 1, max: 2, prompt_id: OTHER, node: '3' });
  send(conn.ws, 'custom_node_event', { prompt_id: PID });
  send(conn.ws, 'executing', { node: '12' }); // reconnect replay without prompt_id: unattributable
  send(conn.ws, 'execution_start', { prompt_id: PID, timestamp: 2 });
  send(conn.ws, 'progress', { value: 5, max: 20, prompt_id: PID, node: '3' });
  const meta = Buffer.from(JSON.stringify({ node_id: '3', prompt_id: OTHER, image_type: 'image/png' }));
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  conn.ws.send(Buffer.concat([u32(4), u32(meta.length), meta, Buffer.from('png')])); // another prompt's preview
  conn.ws.send(Buffer.concat([u32(1), u32(1), Buffer.from([0xff, 0xd8])]));
  send(conn.ws, 'executed', {
    node: '9',
    display_node: '9',
    output: { images: [{ filename: 'a.png', subfolder: '', type: 'output' }] },
    prompt_id: PID,
  });
  send(conn.ws, 'execution_success', { prompt_id: PID, timestamp: 3 });
  send(conn.ws, 'executing', { node: null, prompt_id: PID });

  const events = await collect(f, (e) => e.type === 'executing' && e.data.node === null);
  f.close();
  assert.deepEqual(
    events.map((e) => e.type),
    ['status', 'execution_start', 'progress', 'preview', 'executed', 'execution_success', 'executing'],
  );
  const preview = events[3];
  assert.ok(preview?.type === 'preview');
  assert.equal(preview.format, 'jpeg');
  assert.deepEqual(Buffer.from(preview.bytes), Buffer.from([0xff, 0xd8]));
  assert.ok(events.every((e) => !('connection' in e) || e.connection === 1));
});

test('events of another run of the same prompt_id before our execution_start are marked inRun:false', async () => {
  const srv = await wsServer();
  const f = fastFollower(srv.baseUrl);
  await f.ready();
  const { ws } = await srv.next();
  // An older run of the same id, posted without client_id, is interrupted: broadcast to everyone.
  send(ws, 'execution_interrupted', {
    prompt_id: PID,
    node_id: '3',
    node_type: 'KSampler',
    executed: [],
    timestamp: 1,
  });
  send(ws, 'execution_start', { prompt_id: PID, timestamp: 2 });
  send(ws, 'execution_interrupted', {
    prompt_id: PID,
    node_id: '4',
    node_type: 'KSampler',
    executed: [],
    timestamp: 3,
  });
  send(ws, 'executing', { node: null, prompt_id: PID });
  send(ws, 'progress', { value: 1, max: 2, prompt_id: PID });
  const events = await collect(f, (e) => e.type === 'progress');
  f.close();
  const fence = events.filter((e) => e.type !== 'status').map((e) => [e.type, 'inRun' in e ? e.inRun : null]);
  assert.deepEqual(fence, [
    ['execution_interrupted', false],
    ['execution_start', true],
    ['execution_interrupted', true],
    ['executing', true],
    ['progress', false],
  ]);
});

test('after the server terminates the socket the follower reconnects with a fresh clientId and says so', async () => {
  const srv = await wsServer();
  const f = fastFollower(srv.baseUrl);
  await f.ready();
  const first = await srv.next();
  const firstId = f.clientId;
  first.ws.terminate();
  const second = await srv.next();
  assert.notEqual(second.clientId, first.clientId);
  assert.match(second.clientId, /^sf-a-17-/);
  send(second.ws, 'progress', { value: 2, max: 4, prompt_id: PID });
  const events = await collect(f, (e) => e.type === 'progress');
  f.close();
  assert.equal(firstId, first.clientId);
  const kinds = events.map((e) => e.type);
  assert.deepEqual(kinds, ['status', 'disconnected', 'reconnected', 'status', 'progress']);
  const rec = events[2];
  assert.ok(rec?.type === 'reconnected');
  assert.equal(rec.clientId, second.clientId);
  assert.equal(rec.connection, 2);
  const prog = events[4];
  assert.ok(prog?.type === 'progress');
  assert.equal(prog.inRun, false); // a new clientId gets no targeted events: fence by /history
});

test('a link that stops answering pings is detected and replaced', async () => {
  const srv = await wsServer({ autoPong: false });
  const f = fastFollower(srv.baseUrl, { pingIntervalMs: 40, pingTimeoutMs: 40 });
  await f.ready();
  await srv.next();
  const events = await collect(f, (e) => e.type === 'reconnected');
  f.close();
  const d = events.find((e) => e.type === 'disconnected');
  assert.ok(d?.type === 'disconnected');
  assert.equal(d.reason, 'ping timeout');
});

test('gives up after the configured time without a socket: emits lost and ends the stream', async () => {
  const srv = await wsServer();
  const f = fastFollower(srv.baseUrl, { giveUpAfterMs: 150, random: () => 0.5 });
  await f.ready();
  const { ws } = await srv.next();
  // Stop listening at once (reconnects are refused); close's callback waits for open sockets.
  const stopped = new Promise((r) => srv.wss.close(r));
  ws.terminate();
  await stopped;
  const events: FollowEvent[] = [];
  for await (const e of f) events.push(e); // must end by itself
  const last = events.at(-1);
  assert.ok(last?.type === 'lost');
  assert.ok(last.disconnectedForMs >= 150);
  assert.deepEqual(events.map((e) => e.type).slice(-2), ['disconnected', 'lost']);
});

test('ready() rejects with the observed failure when the server is never reachable', async () => {
  const srv = await wsServer();
  const baseUrl = srv.baseUrl;
  await new Promise((r) => srv.wss.close(r));
  const f = fastFollower(baseUrl, { giveUpAfterMs: 100 });
  await assert.rejects(f.ready(), (err: unknown) => err instanceof ComfyRequestError && err.failure.kind === 'refused');
  const events: FollowEvent[] = [];
  for await (const e of f) events.push(e);
  assert.deepEqual(
    events.map((e) => e.type),
    ['lost'],
  );
});

test('the give-up budget and backoff use the injected clock and sleep', async () => {
  const srv = await wsServer();
  const baseUrl = srv.baseUrl;
  await new Promise((r) => srv.wss.close(r));
  let clock = 0;
  const sleeps: number[] = [];
  const f = fastFollower(baseUrl, {
    now: () => clock,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
    random: () => 0.5,
    backoff: { baseMs: 100, capMs: 400 },
    giveUpAfterMs: 1_000,
  });
  const events: FollowEvent[] = [];
  for await (const e of f) events.push(e);
  // Full jitter at 0.5: 100, 200, 200 (cap 400 → 200), … clamped to the remaining budget.
  assert.deepEqual(sleeps, [100, 200, 200, 200, 200, 100]);
  const lost = events.at(-1);
  assert.ok(lost?.type === 'lost');
  assert.equal(lost.disconnectedForMs, 1_000);
});

test('close() ends the stream without a lost event and closes the socket', async () => {
  const srv = await wsServer();
  const f = fastFollower(srv.baseUrl);
  await f.ready();
  const { ws } = await srv.next();
  const closed = new Promise((r) => ws.once('close', r));
  // Closed by the consumer once the server's first frame is in; the stream must then just end.
  const events = await collect(f, (e) => {
    if (e.type === 'status') f.close();
    return false;
  });
  await closed;
  assert.deepEqual(
    events.map((e) => e.type),
    ['status'],
  );
});

test('a refused WebSocket upgrade (e.g. 403 from the origin check) is an http observation', async () => {
  const server = createServer();
  server.on('upgrade', (_req, socket) => socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const f = fastFollower(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { giveUpAfterMs: 50 });
    await assert.rejects(
      f.ready(),
      (err: unknown) => err instanceof ComfyRequestError && err.failure.kind === 'http' && err.failure.status === 403,
    );
    const events: FollowEvent[] = [];
    for await (const e of f) events.push(e);
    const lost = events.at(-1);
    assert.ok(lost?.type === 'lost');
    assert.match(lost.reason, /403/);
  } finally {
    await new Promise((r) => server.close(r));
  }
});
