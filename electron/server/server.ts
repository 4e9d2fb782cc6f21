/**
 * The headless host (SPEC §10): the engine's contract over HTTP + WebSocket, the ledger's files, and
 * the built renderer, on 127.0.0.1 by default. Any other listen address requires a token.
 *
 *   POST /api/call/:method   the contract (api-route.ts)
 *   GET  /api/info           name, demo label, whether a token is needed, where exports go
 *   PUT  /api/uploads/:sha   an input file sent with a shot list (upload-route.ts)
 *   GET  /api/events         WebSocket of batched events (event-socket.ts)
 *   GET  /api/export/:kind   a CSV export as a download, streamed (export-route.ts)
 *   GET  /files/asset/:id    one ledger file (asset-route.ts)
 *   GET  /*                  the renderer (static-files.ts)
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { Engine } from '../engine/engine.js';
import { checkAccess, corsHeaders, isLoopbackHost, type AccessPolicy } from './access.js';
import { handleApiCall } from './api-route.js';
import { serveAsset } from './asset-route.js';
import { handleUpload } from './upload-route.js';
import { startEventHub } from './event-socket.js';
import { serveExport } from './export-route.js';
import { envelope, sendError, sendJson } from './http-util.js';
import { staticHandler } from './static-files.js';

export interface ServerOptions {
  engine: Engine;
  host?: string;
  port?: number;
  /** Required off loopback; generated when missing there. On loopback, a given token is enforced too. */
  token?: string;
  /** The built renderer; default `dist/renderer` of this checkout. */
  staticDir?: string;
  /** Shown as a badge in the UI ("Demo farm"). */
  demoLabel?: string;
  /** Where CSV exports are written; default `<data>/exports`. */
  exportDir?: string;
  /** Where relative input files of dropped shot lists are looked up; default the data folder. */
  importBaseDir?: string;
  /** Event flush interval (≥ 100 ms keeps it at ≤ 10 flushes a second). */
  eventIntervalMs?: number;
  maxBodyBytes?: number;
}

export interface RunningServer {
  url: string;
  /** null when no token is required (loopback without one). */
  token: string | null;
  close(): Promise<void>;
}

export const DEFAULT_STATIC_DIR = new URL('../../dist/renderer/', import.meta.url).pathname;

export async function startServer(o: ServerOptions): Promise<RunningServer> {
  const host = o.host ?? '127.0.0.1';
  const loopbackOnly = isLoopbackHost(host);
  const token = o.token ?? (loopbackOnly ? null : randomBytes(24).toString('base64url'));
  const dataDir = dirname(o.engine.dbFile);
  const exportDir = o.exportDir ?? join(dataDir, 'exports');
  const serveStatic = staticHandler(o.staticDir ?? DEFAULT_STATIC_DIR);
  const hub = startEventHub(o.engine, o.eventIntervalMs ?? 100);
  const policy: AccessPolicy = { token, loopbackOnly };
  const info = { name: 'Shotfarm', demoLabel: o.demoLabel ?? null, tokenRequired: token !== null, exportDir };

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    const isApp = !path.startsWith('/api/') && !path.startsWith('/files/');
    // The desktop app in studio mode (access.ts): its preflights (which carry no token) are
    // answered, and its answers are readable; everything else is checked as for any caller.
    const cors = isApp ? null : corsHeaders(req.headers.origin, policy);
    if (cors) for (const [k, v] of Object.entries(cors)) res.setHeader(k, v);
    if (cors && req.method === 'OPTIONS') return void res.writeHead(204).end();
    const verdict = checkAccess(req, url, policy, !isApp);
    if (!verdict.ok) return sendError(res, verdict.status, envelope('bad_input', verdict.message));
    res.setHeader('x-content-type-options', 'nosniff');

    const call = /^\/api\/call\/([^/]+)$/.exec(path);
    if (call) {
      return handleApiCall(req, res, decodeURIComponent(call[1] ?? ''), {
        engine: o.engine, exportDir, importBaseDir: o.importBaseDir ?? dataDir, maxBodyBytes: o.maxBodyBytes ?? 64 * 1024 * 1024,
      });
    }
    const upload = /^\/api\/uploads\/([^/]+)$/.exec(path);
    if (upload) return handleUpload(req, res, decodeURIComponent(upload[1] ?? ''), url, o.engine);
    const getLike = req.method === 'GET' || req.method === 'HEAD';
    if (path === '/api/info' && getLike) return sendJson(res, 200, info);
    const download = /^\/api\/export\/([^/]+)$/.exec(path);
    if (download && getLike) return serveExport(o.engine, decodeURIComponent(download[1] ?? ''), url.searchParams, res, req.method === 'HEAD');
    const asset = /^\/files\/asset\/([^/]+)$/.exec(path);
    if (asset && getLike) return serveAsset(o.engine, decodeURIComponent(asset[1] ?? ''), res, req.method === 'HEAD');
    if (isApp && getLike && serveStatic(path, res, req.method === 'HEAD')) return;
    sendError(res, 404, envelope('not_found', `Nothing at ${path.slice(0, 200)}.`));
  }

  const server = createServer((req, res) => {
    route(req, res).catch(() => {
      if (!res.headersSent) sendError(res, 500, envelope('internal', 'The server failed to answer this request.'));
      else res.destroy();
    });
  });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const verdict = url.pathname === '/api/events' ? checkAccess(req, url, policy, true) : { ok: false as const, status: 404, message: 'Not found' };
    if (!verdict.ok) {
      socket.end(`HTTP/1.1 ${verdict.status} ${verdict.status === 401 ? 'Unauthorized' : verdict.status === 403 ? 'Forbidden' : 'Not Found'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    hub.handleUpgrade(req, socket, head);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    token,
    async close() {
      await hub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
