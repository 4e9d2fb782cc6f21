/**
 * The headless host (SPEC §10): the engine's contract over HTTP + WebSocket, the ledger's files, and
 * the built renderer, on 127.0.0.1 by default. Any other listen address requires a token.
 *
 *   POST /api/call/:method   the contract (api-route.ts)
 *   GET  /api/info           name, demo label, whether a token is needed, where exports go
 *   *    /api/session        a browser signs in and out (session-route.ts)
 *   POST /api/ticket         a short-lived ticket for the socket or file links (ticket-route.ts)
 *   PUT  /api/uploads/:sha   an input file sent with a shot list (upload-route.ts)
 *   GET  /api/events         WebSocket of batched events (event-socket.ts)
 *   GET  /api/export/:kind   a CSV export as a download, streamed (export-route.ts)
 *   GET  /files/asset/:id    one ledger file (asset-route.ts)
 *   GET  /*                  the renderer (static-files.ts)
 *
 * Once people are defined (shotfarm users add), every request but the app shell needs a personal
 * token (people-access.ts) and calls run as that person, under the permission policy. A browser
 * signs in once and the server keeps its token in an HttpOnly cookie (session-cookie.ts), so no
 * URL the page requests carries it; a change made on the cookie needs the CSRF header. A client
 * that holds a token (the desktop app in studio mode, a tab of a farm without people) sends it in
 * the header, and on the events socket and file links — which cannot carry a header — a short-lived
 * ticket instead (ticket-book.ts); a token in an address is refused everywhere (people-access.ts).
 * With `tls` it serves https and wss (node:https), the same routes.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { Engine } from '../engine/engine.js';
import { inputsFolderProblem } from '../engine/files/farm-places.js';
import { ShotfarmError } from '../../shared/errors.js';
import { permission } from '../../shared/permissions.js';
import { checkAccess, corsHeaders, isLoopbackHost, type AccessPolicy } from './access.js';
import { BadTokenBackoff, type BackoffOptions } from './bad-token-backoff.js';
import { authenticate, NOTHING_PRESENTED, requestToken } from './people-access.js';
import { CSRF_HEADER, sessionCookieName } from './session-cookie.js';
import { handleSession, sendRefusal } from './session-route.js';
import { socketSessions } from './socket-sessions.js';
import { handleApiCall } from './api-route.js';
import { serveAsset } from './asset-route.js';
import { handleUpload } from './upload-route.js';
import { startEventHub } from './event-socket.js';
import { serveExport } from './export-route.js';
import { decodeSegment, envelope, sendError, sendJson } from '../engine/hosting/http-util.js';
import { takeWithheld } from '../engine/hosting/server-paths.js';
import { staticHandler } from './static-files.js';
import { TicketBook } from './ticket-book.js';
import { handleTicket } from './ticket-route.js';
import { TICKET_PATH, type TicketUse } from '../../shared/tickets.js';

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
  /**
   * Where relative input files of dropped shot lists are looked up: a folder the operator named
   * (`serve --inputs DIR`). None by default: inputs then come only with the list (uploads) — never
   * from the data folder, which holds the farm's lock record and keys.
   */
  importBaseDir?: string;
  /** Event flush interval (≥ 100 ms keeps it at ≤ 10 flushes a second). */
  eventIntervalMs?: number;
  maxBodyBytes?: number;
  /** PEM certificate (chain) and key: serve https and wss. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** The operator's log (serve's stderr): what a remote answer withheld (server paths), and failures. */
  log?: (message: string) => void;
  /** How repeated wrong tokens from one address are slowed down (bad-token-backoff.ts). */
  backoff?: Partial<BackoffOptions>;
}

export interface RunningServer {
  url: string;
  /** null when no token is required (loopback without one). */
  token: string | null;
  close(): Promise<void>;
}

/** Which ticket a request may use: a files ticket opens file links and CSV downloads (GET), nothing else. */
function fileTicketUse(path: string, getLike: boolean): TicketUse | null {
  return getLike && (path.startsWith('/files/asset/') || path.startsWith('/api/export/')) ? 'files' : null;
}

export const DEFAULT_STATIC_DIR = new URL('../../dist/renderer/', import.meta.url).pathname;

export async function startServer(o: ServerOptions): Promise<RunningServer> {
  const host = o.host ?? '127.0.0.1';
  const loopbackOnly = isLoopbackHost(host);
  const token = o.token ?? (loopbackOnly ? null : randomBytes(24).toString('base64url'));
  const dataDir = dirname(o.engine.dbFile);
  const exportDir = o.exportDir ?? join(dataDir, 'exports');
  // An inputs folder inside the farm's own places would make its lock record and keys anyone's inputs.
  const inputsProblem =
    o.importBaseDir === undefined ? null : inputsFolderProblem(o.engine.farmPlaces(), o.importBaseDir);
  if (inputsProblem) throw new ShotfarmError('bad_input', `--inputs: ${inputsProblem}.`);
  const serveStatic = staticHandler(o.staticDir ?? DEFAULT_STATIC_DIR);
  const hub = startEventHub(o.engine, o.eventIntervalMs ?? 100);
  const policy: AccessPolicy = { token, loopbackOnly };
  const backoff = new BadTokenBackoff(o.engine.clock, o.backoff);
  const tickets = new TicketBook(o.engine.clock);
  const sockets = socketSessions(o.engine, tickets);
  // Named after the port, known once listening (no request arrives before).
  let cookieName = sessionCookieName(o.port ?? 0);
  // People may be added while serve runs: whether a token is needed is asked at each request.
  const info = () => ({
    name: 'Shotfarm',
    demoLabel: o.demoLabel ?? null,
    tokenRequired: token !== null || o.engine.peopleDefined(),
    exportDir,
  });

  /**
   * With people defined the shared token is not enough: each person's own token is asked (people-access.ts).
   * One place for requests and socket upgrades alike: they once differed, and the desktop page's
   * event socket was refused in studio mode.
   */
  const policyNow = (people: boolean): AccessPolicy =>
    people ? { token: null, loopbackOnly: false, personalTokens: true } : policy;

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    const isApp = !path.startsWith('/api/') && !path.startsWith('/files/');
    const people = o.engine.peopleDefined();
    // With people defined the shared token is not enough: each person's own token is asked below. That
    // token also stops a DNS-rebound page, so the loopback Host check is not needed — a reverse proxy
    // in front of a loopback serve may then pass its own Host (docs/studio-farm.md → HTTPS).
    const effective = policyNow(people);
    // The desktop app in studio mode (access.ts): its preflights (which carry no token) are
    // answered, and its answers are readable; everything else is checked as for any caller.
    const cors = isApp ? null : corsHeaders(req.headers.origin, effective);
    if (cors) for (const [k, v] of Object.entries(cors)) res.setHeader(k, v);
    if (cors && req.method === 'OPTIONS') return void res.writeHead(204).end();
    // Signing in is how a browser gets its token to the server: only Host/Origin are checked before.
    const isSession = path === '/api/session';
    const getLike = req.method === 'GET' || req.method === 'HEAD';
    // The app shell takes no credential (its `/?token=` is the page's to read and take out of the address).
    const presented =
      isApp || isSession
        ? NOTHING_PRESENTED
        : requestToken(req, url, cookieName, tickets, fileTicketUse(path, getLike));
    if (!presented.ok) return sendRefusal(res, presented);
    const verdict = checkAccess(req, effective, isApp || isSession ? undefined : presented.token);
    if (!verdict.ok) return sendError(res, verdict.status, envelope('bad_input', verdict.message));
    res.setHeader('x-content-type-options', 'nosniff');
    if (isApp && getLike && serveStatic(path, res, req.method === 'HEAD')) return;
    if (isSession)
      return handleSession(req, res, url, { engine: o.engine, backoff, cookieName, ownTls: o.tls !== undefined });
    const who = authenticate(req, presented, o.engine, backoff);
    if (!who.ok) return sendRefusal(res, who);
    // The cookie goes with any request the browser makes to us; a change must also prove it came from our page.
    if (
      who.via === 'cookie' &&
      req.method !== 'GET' &&
      req.method !== 'HEAD' &&
      req.headers[CSRF_HEADER] === undefined
    ) {
      return sendError(
        res,
        403,
        envelope(
          'forbidden',
          `A change made with the sign-in cookie needs the ${CSRF_HEADER} header (the farm's own page sends it).`,
        ),
      );
    }

    // A broken %-escape in the one segment a route reads is the caller's mistake: 400, said so.
    const segment = /^\/(?:api\/(?:call|uploads|export)|files\/asset)\/([^/]+)$/.exec(path)?.[1];
    const decoded = segment === undefined ? '' : decodeSegment(segment);
    if (decoded === null)
      return sendError(
        res,
        400,
        envelope('bad_input', 'The address has a broken %-escape (a % must be followed by two hex digits).'),
      );
    const call = /^\/api\/call\/([^/]+)$/.exec(path);
    if (call) {
      return handleApiCall(req, res, call[1] ?? '', {
        engine: o.engine,
        exportDir,
        importBaseDir: o.importBaseDir ?? null,
        maxBodyBytes: o.maxBodyBytes ?? 64 * 1024 * 1024,
        caller: who.caller,
      });
    }
    const upload = /^\/api\/uploads\/([^/]+)$/.exec(path);
    if (upload) {
      // An upload is part of an import: the roles that may not import may not fill the farm's disk either.
      const may =
        who.caller.kind === 'local'
          ? { allowed: true as const }
          : permission({ role: who.caller.role, method: 'uploads.check' });
      if (!may.allowed) return sendError(res, 403, envelope('forbidden', may.sentence, false));
      return handleUpload(req, res, decoded, url, o.engine, who.caller);
    }
    if (path === TICKET_PATH) return handleTicket(req, res, tickets, presented.token);
    if (path === '/api/info' && getLike) return sendJson(res, 200, info());
    const download = /^\/api\/export\/([^/]+)$/.exec(path);
    if (download && getLike)
      return serveExport(o.engine, decoded, url.searchParams, res, req.method === 'HEAD', who.caller);
    const asset = /^\/files\/asset\/([^/]+)$/.exec(path);
    if (asset && getLike) return serveAsset(o.engine, decoded, res, req.method === 'HEAD', who.caller);
    sendError(res, 404, envelope('not_found', `Nothing at ${path.slice(0, 200)}.`));
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    route(req, res)
      .catch((err: unknown) => {
        o.log?.(
          `${req.method ?? '?'} ${(req.url ?? '').split('?')[0]?.slice(0, 200)} failed: ${(err as Error).stack ?? String(err)}`,
        );
        if (!res.headersSent) sendError(res, 500, envelope('internal', 'The server failed to answer this request.'));
        else res.destroy();
      })
      .finally(() => {
        // The full sentence of an answer whose server paths were withheld: for the operator's eyes only.
        const detail = takeWithheld(res);
        if (detail !== null)
          o.log?.(
            `${req.method ?? '?'} ${(req.url ?? '').split('?')[0]?.slice(0, 200)} answered ${res.statusCode}: ${detail}`,
          );
      });
  };
  const server: Server = o.tls
    ? createHttpsServer({ cert: o.tls.cert, key: o.tls.key }, onRequest)
    : createServer(onRequest);
  server.on('upgrade', (req: IncomingMessage, socket, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const people = o.engine.peopleDefined();
    const presented =
      url.pathname === '/api/events' ? requestToken(req, url, cookieName, tickets, 'socket') : NOTHING_PRESENTED;
    let verdict = !presented.ok
      ? { ok: false as const, status: presented.status, message: presented.message }
      : url.pathname === '/api/events'
        ? // The same policy as a request's: the desktop page's socket (Origin null) is let in on a personal token too.
          checkAccess(req, policyNow(people), presented.token)
        : { ok: false as const, status: 404 as const, message: 'Not found' };
    if (verdict.ok && presented.ok) {
      const who = authenticate(req, presented, o.engine, backoff);
      if (!who.ok) verdict = { ok: false, status: who.status === 401 ? 401 : 403, message: who.message };
    }
    if (!verdict.ok) {
      const words: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' };
      socket.end(
        `HTTP/1.1 ${verdict.status} ${words[verdict.status] ?? 'Forbidden'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      );
      return;
    }
    sockets.track(socket, presented.ok ? presented.token : null);
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
  cookieName = sessionCookieName(port);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${o.tls ? 'https' : 'http'}://${shownHost}:${port}`,
    token,
    async close() {
      sockets.close();
      await hub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
