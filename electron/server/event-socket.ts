/**
 * `GET /api/events`: one WebSocket per client, fed by one shared batcher (each batch is serialised
 * once). Clients send nothing but `{type:"ping"}`; anything else closes the socket (1008). A frame
 * over MAX_CLIENT_FRAME_BYTES closes that socket (1009) — `ws` reports it as an error on the
 * socket, which is listened for here: an unheard one once ended the whole server. A client that
 * cannot keep up is dropped instead of buffering without bound — it reconnects and refetches.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket, type RawData } from 'ws';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { EventBatcher, relayWireEvents, type WireEvent } from '../engine/hosting/event-batcher.js';

const clientMessage = z.strictObject({ type: z.literal('ping') });
/** A client this far behind is dropped (it will reconnect and refetch what it shows). */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** A ping is 15 bytes; anything near this is not one of ours. */
export const MAX_CLIENT_FRAME_BYTES = 4 * 1024;

export interface EventSocketHub {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): Promise<void>;
}

export function startEventHub(engine: Engine, intervalMs = 100): EventSocketHub {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES });
  wss.on('error', () => undefined); // the server's own errors concern one upgrade, never the process
  const batcher = new EventBatcher((events: WireEvent[]) => {
    const text = JSON.stringify({ type: 'events', events });
    for (const ws of wss.clients) {
      if (ws.readyState !== WebSocket.OPEN) continue;
      if (ws.bufferedAmount > MAX_BUFFERED_BYTES) ws.terminate();
      else ws.send(text);
    }
  }, intervalMs);
  // Relayed only while a client is connected: with none, the engine's bus has no audience and skips
  // work done only to be shown (the views of jobs other engines changed: announcer.ts). A client
  // refetches what it shows on `hello`, so nothing it missed before connecting is owed to it.
  let unsubscribe: (() => void) | null = null;
  let connected = 0;

  wss.on('connection', (ws: WebSocket) => {
    connected++;
    unsubscribe ??= relayWireEvents(engine.events, (e) => batcher.push(e));
    ws.once('close', () => {
      if (--connected > 0) return;
      unsubscribe?.();
      unsubscribe = null;
    });
    // An oversized or invalid frame, a reset: ws closes or drops this socket itself; nothing else to do.
    ws.on('error', () => undefined);
    ws.send(JSON.stringify({ type: 'hello' }));
    ws.on('message', (data: RawData, isBinary: boolean) => {
      let parsed: unknown;
      try {
        parsed = isBinary ? null : JSON.parse(data.toString());
      } catch {
        parsed = null;
      }
      if (!clientMessage.safeParse(parsed).success) {
        ws.close(1008, 'unexpected message');
        return;
      }
      ws.send(JSON.stringify({ type: 'pong' }));
    });
  });

  return {
    handleUpgrade(req, socket, head) {
      socket.on('error', () => socket.destroy()); // a client gone mid-handshake
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    },
    close() {
      unsubscribe?.();
      unsubscribe = null;
      batcher.close();
      for (const ws of wss.clients) ws.terminate();
      return new Promise((resolve) => wss.close(() => resolve()));
    },
  };
}
