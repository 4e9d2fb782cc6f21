/**
 * A workstation's socket (comfy/station-socket.ts) drops a frame of a type nobody reads on its type
 * alone, without parsing its data: ComfyUI sends progress_state — every node's state — at every
 * sampler step, the most frames of a run, and the engine reads none of them (at 200 GPUs, thousands
 * a second parsed only to be dropped). The frames it reads still arrive, whatever the layout.
 * Against a throwaway `ws` server on a loopback port.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { StationSocket } from '../../electron/engine/comfy/station-socket.js';
import type { FollowEvent } from '../../electron/engine/comfy/ws-events.js';

const PID = '8d0f2f7e-5c1a-5b53-9a51-0e0f4f0b2a11';
const TYPES = new Set(['status', 'execution_start', 'executing', 'progress', 'execution_success']);

/** The text of a frame as ComfyUI's json.dumps writes it: `{"type": …, "data": …}`, spaces after the separators. */
const comfyText = (type: string, data: unknown): string =>
  `{"type": ${JSON.stringify(type)}, "data": ${JSON.stringify(data, null, 1).replace(/\n\s*/g, ' ')}}`;

test('a frame of a type nobody reads is dropped unparsed; the frames read still arrive', async (t) => {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  t.after(async () => {
    for (const c of wss.clients) c.terminate();
    await new Promise((r) => wss.close(r));
  });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const connected = new Promise<WebSocket>((r) => wss.once('connection', r));
  const socket = new StationSocket({
    baseUrl: `http://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    newClientId: () => 'c1',
    types: TYPES,
  });
  t.after(() => socket.close());
  const ws = await connected;
  await socket.ready();
  const sub = socket.subscribe(PID);

  const parse = JSON.parse;
  let unreadParsed = 0;
  JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
    if (typeof text === 'string' && text.includes('progress_state')) unreadParsed++;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  t.after(() => {
    JSON.parse = parse;
  });

  const nodes = { '3': { value: 1, max: 20, state: 'running', node_id: '3', prompt_id: PID } };
  ws.send(comfyText('execution_start', { prompt_id: PID, timestamp: 1 }));
  for (let step = 1; step <= 3; step++) {
    ws.send(comfyText('progress_state', { prompt_id: PID, nodes }));
    ws.send(JSON.stringify({ type: 'progress_state', data: { prompt_id: PID, nodes } }));
    ws.send(comfyText('progress', { value: step, max: 20, prompt_id: PID, node: '3' }));
  }
  // Another layout (data first): parsed whole, read as before.
  ws.send(`{"data": {"prompt_id": "${PID}", "timestamp": 2}, "type": "execution_success"}`);

  const got: FollowEvent[] = [];
  for await (const e of sub) {
    got.push(e);
    if (e.type === 'execution_success') break;
  }
  assert.deepEqual(
    got.map((e) => e.type),
    ['execution_start', 'progress', 'progress', 'progress', 'execution_success'],
  );
  assert.equal(unreadParsed, 0, 'no progress_state frame was parsed');
});
