// The socket registry of ComfyUI's PromptServer: one entry per clientId. Reproduces two traps the
// recordings show: a second socket with the same id silently replaces the first (which then receives
// nothing, not even broadcasts), and the old socket's close handler deletes the id unconditionally,
// orphaning the new socket (ws_old_socket_closes_after_reconnect.json).
// While the instance is partitioned, frames are held per socket (like bytes stuck in a TCP buffer)
// and flushed on heal.

import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';

export interface WsMessage {
  type: string;
  data: Record<string, unknown>;
}

export class WsHub {
  private readonly registry = new Map<string, WebSocket>();
  private held = new Map<WebSocket, string[]>();
  private partitioned = false;
  private readonly corked = new Set<WebSocket>();

  register(clientId: string, ws: WebSocket): void {
    this.registry.set(clientId, ws);
  }

  /** ComfyUI's `finally: self.sockets.pop(sid, None)` — removes whatever the id now points at. */
  unregister(clientId: string): void {
    this.registry.delete(clientId);
  }

  socketOf(clientId: string): WebSocket | undefined {
    return this.registry.get(clientId);
  }

  /** `send_sync(event, data, sid)`: to that client if registered, dropped otherwise; `sid` null broadcasts. */
  send(msg: WsMessage, clientId: string | null): void {
    if (clientId === null) {
      for (const ws of this.registry.values()) this.write(ws, msg);
      return;
    }
    const ws = this.registry.get(clientId);
    if (ws) this.write(ws, msg);
  }

  /** Sends straight to one socket (the connect-time `status` and `feature_flags` replies). */
  write(ws: WebSocket, msg: WsMessage): void {
    const frame = JSON.stringify(msg);
    if (this.partitioned) {
      const q = this.held.get(ws) ?? [];
      q.push(frame);
      this.held.set(ws, q);
      return;
    }
    if (ws.readyState !== ws.OPEN) return;
    this.cork(ws);
    ws.send(frame);
  }

  /**
   * Frames sent in one turn of the event loop leave in one write: the TCP socket is corked until
   * the next tick (a prompt sends ~15 small frames; one syscall each was the simulator's largest
   * cost). Bytes and order on the wire are unchanged. `_socket` is ws's own net.Socket.
   */
  private cork(ws: WebSocket): void {
    if (this.corked.has(ws)) return;
    const socket = (ws as unknown as { _socket?: Socket })._socket;
    if (!socket || socket.destroyed) return;
    socket.cork();
    this.corked.add(ws);
    process.nextTick(() => {
      this.corked.delete(ws);
      socket.uncork();
    });
  }

  setPartitioned(on: boolean): void {
    this.partitioned = on;
    if (on) return;
    const held = this.held;
    this.held = new Map();
    for (const [ws, frames] of held) {
      for (const f of frames) if (ws.readyState === ws.OPEN) ws.send(f);
    }
  }

  /** Forget everything (crash): sockets are destroyed by the caller. */
  reset(): void {
    this.registry.clear();
    this.held.clear();
  }
}
