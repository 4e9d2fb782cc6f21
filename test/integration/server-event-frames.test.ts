/**
 * Defect 4 of issue [R]: `serve` died on one WebSocket frame over 4 kB sent to /api/events (no
 * token needed on loopback): `ws` reported the oversized frame as an error on the socket, and
 * nobody listened. Now that socket alone is closed (1009), and everyone else is still served.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startServer } from '../../electron/server/server.js';
import { MAX_CLIENT_FRAME_BYTES } from '../../electron/server/event-socket.js';
import { engineFor } from '../helpers/engine.js';
import { nextValue } from '../helpers/wait.js';

function open(url: string): Promise<WebSocket> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/api/events`);
  ws.on('error', () => undefined);
  return nextValue<WebSocket>((deliver) => ws.once('message', () => deliver(ws)), { what: 'the hello frame' });
}

test('a frame over the limit on /api/events closes that socket (1009); the server and the other sockets go on', async (ctx) => {
  const { engine } = await engineFor(ctx, { templates: false });
  const server = await startServer({ engine });
  ctx.after(() => server.close());
  const bystander = await open(server.url);
  const hostile = await open(server.url);
  const closed = nextValue<number>((deliver) => hostile.once('close', (code) => deliver(code)), {
    what: 'the oversized socket to close',
  });
  hostile.send('x'.repeat(MAX_CLIENT_FRAME_BYTES + 1024));
  assert.equal(await closed, 1009);
  const info = await fetch(`${server.url}/api/info`);
  assert.equal(info.status, 200, 'still serving');
  const pong = nextValue<string>((deliver) => bystander.once('message', (d) => deliver(d.toString())), {
    what: 'the pong',
  });
  bystander.send(JSON.stringify({ type: 'ping' }));
  assert.equal(JSON.parse(await pong).type, 'pong');
  bystander.close();
});
