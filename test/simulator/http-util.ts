// Response helpers reproducing aiohttp's answers as recorded: JSON with `charset=utf-8`, empty 200s
// typed `application/octet-stream`, the generic 500 text page (connection closed), 404/405 pages,
// and the origin-only middleware's 403 (comfyui-protocol.md §1, §13; origin_mismatch_403.json).

import type { IncomingMessage, ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const data = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': data.length });
  res.end(data);
}

export function sendEmpty(res: ServerResponse, status: number): void {
  res.writeHead(status, { 'Content-Type': 'application/octet-stream', 'Content-Length': 0 });
  res.end();
}

export function sendText(res: ServerResponse, status: number, text: string, close = false): void {
  const data = Buffer.from(text);
  const headers: Record<string, string | number> = {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': data.length,
  };
  if (close) headers['Connection'] = 'close';
  res.writeHead(status, headers);
  res.end(data);
}

/** aiohttp's page for an unhandled exception (bad JSON body); the server closes the connection. */
export function send500(res: ServerResponse): void {
  sendText(res, 500, '500 Internal Server Error\n\nServer got itself in trouble', true);
}

export function readBody(req: IncomingMessage, limit = 100 * 1024 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export class BadJson extends Error {}

/** `await request.json()`: anything that is not JSON raises, which aiohttp turns into the 500 page. */
export function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new BadJson('invalid JSON');
  }
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

function splitHost(h: string): { host: string; port: string | null } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(h);
  return m ? { host: m[1]!.toLowerCase(), port: m[2] ?? null } : { host: h.toLowerCase(), port: null };
}

/** ComfyUI's `create_origin_only_middleware`: loopback Host + an Origin whose host/port differ → 403. */
export function originRejected(req: IncomingMessage): boolean {
  const hostHeader = req.headers.host;
  const origin = req.headers.origin;
  if (!hostHeader || !origin) return false;
  const host = splitHost(hostHeader);
  if (!LOOPBACK.has(host.host)) return false;
  let o: { host: string; port: string | null };
  try {
    const u = new URL(origin);
    o = { host: u.hostname.toLowerCase(), port: u.port || null };
  } catch {
    return true;
  }
  if (o.host !== host.host && !(o.host === '[::1]' && host.host === '[::1]')) return true;
  return host.port !== null && o.port !== null && host.port !== o.port;
}
