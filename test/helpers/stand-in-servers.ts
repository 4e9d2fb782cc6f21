/**
 * Hostile stand-ins for a ComfyUI server, on loopback (port 0), closed when the test ends:
 * - `standIn`: an HTTP server that answers every route as the test says — an internal service
 *   behind a workstation URL, absurd `/system_stats`, a server that records uploads;
 * - `oldComfyProxy`: a real simulator behind a proxy that drops the client's `prompt_id` from
 *   POST /prompt, so the server mints its own, as ComfyUI releases before client ids did. HTTP is
 *   forwarded request by request; the WebSocket upgrade is piped through as bytes.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { TestContext } from 'node:test';
import { proxyUpgrades } from './upgrade-proxy.js';

export interface StandIn {
  url: string;
  /** Every request seen: method, path, body. */
  seen: { method: string; path: string; body: string }[];
}

async function listen(ctx: TestContext, server: Server, sockets: Set<Socket>): Promise<string> {
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ctx.after(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** A server that answers as `answer` says; `answer` sees the path and the body. */
export async function standIn(
  ctx: TestContext,
  answer: (path: string, body: string, res: ServerResponse, method: string) => void,
): Promise<StandIn> {
  const seen: StandIn['seen'] = [];
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const path = req.url ?? '/';
      seen.push({ method: req.method ?? 'GET', path, body });
      answer(path, body, res, req.method ?? 'GET');
    });
  });
  return { url: await listen(ctx, server, new Set()), seen };
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A plausible `/system_stats` with one device, its figures overridable. */
export function systemStats(device: Record<string, unknown> = {}, devices?: unknown[]): Record<string, unknown> {
  const gb = 1024 ** 3;
  return {
    system: { os: 'posix', ram_total: 64 * gb, ram_free: 32 * gb, comfyui_version: '0.3.64' },
    devices: devices ?? [
      {
        name: 'cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync',
        type: 'cuda',
        index: 0,
        vram_total: 24 * gb,
        vram_free: 20 * gb,
        torch_vram_total: 2 * gb,
        torch_vram_free: 1 * gb,
        ...device,
      },
    ],
  };
}

export interface OldComfy {
  url: string;
  /** POST /prompt requests that reached the server (each would render the shot once). */
  posts(): number;
  /** The prompt ids the server answered with. */
  mintedIds: string[];
}

/** A ComfyUI that ignores the client's prompt_id: a proxy in front of `targetUrl` that removes it. */
export async function oldComfyProxy(ctx: TestContext, targetUrl: string): Promise<OldComfy> {
  const target = new URL(targetUrl);
  let posts = 0;
  const mintedIds: string[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      let body = raw;
      const isPost = req.method === 'POST' && (req.url ?? '').split('?')[0] === '/prompt';
      if (isPost) {
        posts++;
        try {
          const parsed = JSON.parse(raw) as Record<string, unknown>;
          delete parsed['prompt_id'];
          body = JSON.stringify(parsed);
        } catch {
          // Not JSON: forwarded as it came.
        }
      }
      const headers = { ...req.headers, host: target.host, 'content-length': String(Buffer.byteLength(body)) };
      const out = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
        (up) => {
          const chunks: Buffer[] = [];
          up.on('data', (c: Buffer) => chunks.push(c));
          up.on('end', () => {
            const answer = Buffer.concat(chunks);
            if (isPost) {
              try {
                const id = (JSON.parse(answer.toString('utf8')) as { prompt_id?: unknown }).prompt_id;
                if (typeof id === 'string') mintedIds.push(id);
              } catch {
                // A 400 or an error page: nothing was minted.
              }
            }
            res.writeHead(up.statusCode ?? 502, up.headers).end(answer);
          });
        },
      );
      out.on('error', () => res.writeHead(502).end());
      out.end(body);
    });
  });
  const sockets = new Set<Socket>();
  proxyUpgrades(server, target, sockets);
  ctx.after(() => {
    for (const s of sockets) s.destroy();
  });
  return { url: await listen(ctx, server, sockets), posts: () => posts, mintedIds };
}
