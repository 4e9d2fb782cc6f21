/**
 * A ComfyUI that misbehaves on purpose: a loopback proxy in front of a simulator instance that
 * passes every request (and the WebSocket) through, except the routes a test takes over — a /view
 * that drips a byte at a time, a /system_stats of 300 MB, a /history that is not JSON. What the
 * hostile routes managed to send is counted, so a test can prove a body was refused as it came
 * rather than read whole.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { TestContext } from 'node:test';
import type { SchedulerConfig } from '../../electron/engine/settings/farm-config.js';
import { startSimInstance, type SimInstanceOptions } from '../simulator/index.js';
import { startFarm } from './farm.js';
import { proxyUpgrades } from './upgrade-proxy.js';

export interface Upstream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface HostileRoute {
  match: (method: string, path: string) => boolean;
  /** Answers the request; `upstream()` asks the real server (the simulator) for its answer. */
  handle: (req: IncomingMessage, res: ServerResponse, upstream: () => Promise<Upstream>) => void | Promise<void>;
}

export interface HostileComfy {
  url: string;
  /** Bytes the hostile routes wrote before the client hung up (or they finished). */
  sent: () => number;
  /** Replaces the routes taken over (none: a plain pass-through). */
  setRoutes(routes: HostileRoute[]): void;
  close(): Promise<void>;
}

export async function startHostileComfy(target: string, routes: HostileRoute[] = []): Promise<HostileComfy> {
  const t = new URL(target);
  let sent = 0;
  let current = routes;
  const sockets = new Set<Socket>();

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const up = request(
      { host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host } },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  };
  const upstreamOf = (req: IncomingMessage) => (): Promise<Upstream> =>
    new Promise((resolve, reject) => {
      const up = request(
        {
          host: t.hostname,
          port: t.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: t.host },
        },
        (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => resolve({ status: r.statusCode ?? 502, headers: r.headers, body: Buffer.concat(chunks) }));
          r.on('error', reject);
        },
      );
      up.on('error', reject);
      up.end();
    });

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const route = current.find((r) => r.match(req.method ?? 'GET', path));
    if (!route) return forward(req, res);
    res.on('error', () => undefined);
    const write = res.write.bind(res) as (chunk: string | Buffer) => boolean;
    res.write = ((chunk: string | Buffer, ...rest: unknown[]) => {
      sent += Buffer.byteLength(chunk);
      return (write as (c: string | Buffer, ...r: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof res.write;
    void Promise.resolve(route.handle(req, res, upstreamOf(req))).catch(() => res.destroy());
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  proxyUpgrades(server, t, sockets);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent: () => sent,
    setRoutes: (r) => void (current = r),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Streams `total` bytes of `fill` after `prefix` (as fast as the client reads), stopping when it hangs up. */
export function streamBytes(
  res: ServerResponse,
  o: { prefix?: string; total: number; fill?: string; contentType?: string; announce?: boolean },
): void {
  res.writeHead(200, {
    'content-type': o.contentType ?? 'application/json',
    ...(o.announce ? { 'content-length': String(o.total) } : {}),
  });
  const chunk = Buffer.alloc(64 * 1024, o.fill ?? 'x');
  let left = o.total;
  if (o.prefix) {
    res.write(o.prefix);
    left -= Buffer.byteLength(o.prefix);
  }
  const pump = (): void => {
    while (left > 0 && !res.destroyed) {
      const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= part.length;
      if (!res.write(part)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  res.on('close', () => (left = 0));
  pump();
}

/** Answers 200 and then sends one byte every `everyMs`, never finishing (until the client hangs up). */
export function drip(res: ServerResponse, everyMs: number, contentType = 'image/png'): void {
  res.writeHead(200, { 'content-type': contentType });
  const t = setInterval(() => {
    if (res.destroyed) return clearInterval(t);
    res.write('x');
  }, everyMs);
  res.on('close', () => clearInterval(t));
}

/** Routes by path: exactly `path`, or its prefix when it ends with `*`. */
export function on(method: string, path: string, handle: HostileRoute['handle']): HostileRoute {
  const prefix = path.endsWith('*') ? path.slice(0, -1) : null;
  return { match: (m, p) => m === method && (prefix !== null ? p.startsWith(prefix) : p === path), handle };
}

/**
 * A farm (test/helpers/farm.ts) whose one workstation, `sim-0`, is a simulator behind a hostile
 * proxy; the scheduler is not started (the test sets up first, then `farm.startScheduler()`).
 */
export async function hostileFarmFor(
  ctx: TestContext,
  o: {
    routes?: HostileRoute[];
    sim?: SimInstanceOptions;
    config?: Partial<SchedulerConfig>;
    templates?: string[];
  } = {},
) {
  const sim = await startSimInstance({ name: 'sim-0', duration: { fixedMs: 20 }, ...o.sim });
  const hostile = await startHostileComfy(sim.url, o.routes ?? []);
  const farm = await startFarm({
    instances: [],
    start: false,
    ...(o.config ? { config: o.config } : {}),
    ...(o.templates ? { templates: o.templates } : {}),
  });
  ctx.after(async () => {
    await farm.close();
    await hostile.close();
    await sim.close();
  });
  await farm.engine.call('instances.add', { name: 'sim-0', url: hostile.url, tags: [], maxConcurrency: 1 });
  return { farm, sim, hostile };
}
