// WebSocket clients for tests: every text frame is kept per label, and tests wait on conditions
// over what arrived (event-driven, bounded by a timeout — never a sleep).

import { EventEmitter } from 'node:events';
import WebSocket from 'ws';

export interface WsFrame {
  type: string;
  data: Record<string, unknown>;
}

export class WsClients {
  readonly frames = new Map<string, WsFrame[]>();
  private readonly sockets = new Map<string, WebSocket>();
  private readonly events = new EventEmitter();

  constructor(private readonly baseUrl: string) {
    this.events.setMaxListeners(0);
  }

  of(label: string): WsFrame[] {
    let list = this.frames.get(label);
    if (!list) {
      list = [];
      this.frames.set(label, list);
    }
    return list;
  }

  /** Opens `path` (e.g. `/ws?clientId=x`) under `label`; resolves once the upgrade succeeded. */
  async open(label: string, path: string, timeoutMs = 5000): Promise<WebSocket> {
    const ws = new WebSocket(this.baseUrl.replace(/^http/, 'ws') + path);
    const list = this.of(label);
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      list.push(JSON.parse(String(data)) as WsFrame);
      this.events.emit('change');
    });
    ws.on('close', () => this.events.emit('change'));
    ws.on('error', () => this.events.emit('change'));
    this.sockets.set(label, ws);
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`ws ${label} did not open within ${timeoutMs} ms`)), timeoutMs);
      ws.once('open', () => {
        clearTimeout(t);
        resolve();
      });
      ws.once('error', (e) => {
        clearTimeout(t);
        reject(e);
      });
      ws.once('unexpected-response', (_req, res) => {
        clearTimeout(t);
        reject(new Error(`ws ${label} upgrade answered ${res.statusCode}`));
      });
    });
    return ws;
  }

  socket(label: string): WebSocket | undefined {
    return this.sockets.get(label);
  }

  send(label: string, msg: unknown): void {
    this.sockets.get(label)?.send(JSON.stringify(msg));
  }

  /** Closes the socket and waits until the close handshake finished. */
  async close(label: string, timeoutMs = 5000): Promise<void> {
    const ws = this.sockets.get(label);
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    ws.close();
    await withTimeout(closed, timeoutMs, `ws ${label} close`);
  }

  /** Resolves when `cond()` holds, re-checking on every frame; rejects after `timeoutMs`. */
  waitUntil(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (cond()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onChange = (): void => {
        if (!cond()) return;
        clearTimeout(t);
        this.events.off('change', onChange);
        resolve();
      };
      const t = setTimeout(() => {
        this.events.off('change', onChange);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.events.on('change', onChange);
    });
  }

  /** Waits for a frame matching `pred` on `label` (already received ones count). */
  async waitFor(label: string, pred: (f: WsFrame) => boolean, timeoutMs = 5000): Promise<WsFrame> {
    await this.waitUntil(() => this.of(label).some(pred), timeoutMs, `a matching frame on ${label}`);
    return this.of(label).find(pred)!;
  }

  closeAll(): void {
    for (const ws of this.sockets.values()) ws.terminate();
    this.sockets.clear();
  }
}

export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        t = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(t);
  }
}
