/**
 * The headless server's transport: calls are `POST /api/call/:method`, events arrive over one
 * WebSocket (`/api/events`) in batches. The socket reconnects by itself with jittered backoff; every
 * successful (re)connect is announced as `online` so the store refetches what it may have missed.
 * A client given a token sends it in the Authorization header only: the socket and file links,
 * which cannot carry a header, carry short-lived tickets instead (tickets.ts); a browser signed in
 * by cookie needs neither.
 */
import type { ApiInput, ApiMethod, ApiOutputs } from '../../shared/api.js';
import { uploadPath } from '../../shared/uploads.js';
import type { EventMap, EventTopic } from '../../shared/events.js';
import { exportFilterToQuery } from '../../shared/exports.js';
import { ApiError, type ConnectionState, type ServerInfo, type ShotfarmClient } from './client.js';
import { TopicListeners } from './listeners.js';
import { refusalOf, type Refusal } from './refusal.js';
import { fetchTicket, keepFileTickets, type FileTickets } from './tickets.js';
import { callAnswer, infoSchema, serverMessage, transportError } from './wire.js';

const BACKOFF_MIN_MS = 300;
const BACKOFF_MAX_MS = 8_000;
const PING_MS = 20_000;

export function backoffMs(failures: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** failures);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** The headless client; `close` is for whoever owns its lifetime (a page never closes it; tests do). */
export interface WsClient extends ShotfarmClient {
  /** Closes the events socket and stops reconnecting; calls still work (they are plain requests). */
  close(): void;
  /** Signed out: the events socket closes and waits for `resume` (a sign-in) instead of reconnecting. */
  suspend(): void;
  resume(): void;
  /** Settles once file links can be built (a client with a token has its first files ticket, or was told no). */
  readonly linksReady: Promise<void>;
}

/** The header the server asks of a change made with the sign-in cookie (server session-cookie.ts). */
const CSRF_HEADER = 'x-shotfarm-request';

export interface WsClientOptions {
  baseUrl: string;
  token: string | null;
  absoluteUrls?: boolean;
  /**
   * A browser page signed in by cookie (token null): told when any request, or the events socket,
   * is refused for who is asking — the page then shows its sign-in screen (sign-in.ts).
   */
  onRefused?: (refusal: Refusal) => void;
  /** Start without the events socket (the page is not signed in yet); `resume` opens it. */
  suspended?: boolean;
}

/**
 * `baseUrl` is the server's origin and `token` its access token (null on loopback): the page passes
 * its own origin and the token it was opened with (index.ts), so nothing here reads `window` and
 * the same transport runs in Node against a real server (test/contract/transports.test.ts).
 */
export function createWsClient(opts: WsClientOptions): WsClient {
  const base = new URL(opts.baseUrl);
  const token = opts.token;
  // A page served by this server links its files by path; the desktop app in studio mode is a page
  // of the app's own files, so its links must name the farm's origin.
  const link = (url: URL): string => (opts.absoluteUrls ? url.href : url.pathname + url.search);
  const listeners = new TopicListeners();
  const connectionFns = new Set<(s: ConnectionState) => void>();
  let state: ConnectionState = 'connecting';
  let failures = 0;
  let socket: WebSocket | null = null;
  let ping: ReturnType<typeof setInterval> | null = null;
  let reconnect: ReturnType<typeof setTimeout> | null = null;
  let closed = false;
  let suspended = opts.suspended === true;
  // Each connect() counts; a ticket that arrives after a newer connect, a suspend or a close is dropped.
  let generation = 0;
  const files: FileTickets | null = token ? keepFileTickets(base, token) : null;

  const setState = (s: ConnectionState) => {
    if (s === state) return;
    state = s;
    for (const fn of connectionFns) fn(s);
  };

  const headers = (): Record<string, string> => {
    const h: Record<string, string> = { 'content-type': 'application/json' };
    if (token) h.authorization = `Bearer ${token}`;
    else h[CSRF_HEADER] = '1';
    return h;
  };

  /** Tells the page when an answer is a refusal for who is asking; true when it was. */
  const refused = (status: number, body: unknown): boolean => {
    const r = opts.onRefused ? refusalOf(status, body) : null;
    if (r) opts.onRefused?.(r);
    return r !== null;
  };

  /**
   * A browser cannot read why a socket upgrade was refused: a closed socket is asked about once
   * (GET /api/session) before reconnecting, so a revoked sign-in is told as such, not as "unreachable".
   */
  async function closedBecauseRefused(): Promise<boolean> {
    if (!opts.onRefused) return false;
    try {
      const res = await fetch(new URL('/api/session', base), { headers: headers() });
      return refused(res.status, await res.json().catch(() => null));
    } catch {
      return false;
    }
  }

  const retryLater = (): void => {
    setState('offline');
    reconnect = setTimeout(connect, backoffMs(failures++));
  };

  function connect(): void {
    const mine = ++generation;
    const url = new URL('/api/events', base);
    url.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
    if (!token) return open(url);
    void fetchTicket(base, token, 'socket').then((ticket) => {
      if (mine !== generation || closed || suspended) return;
      if (ticket === null) return retryLater();
      url.searchParams.set('ticket', ticket);
      open(url);
    });
  }

  function open(url: URL): void {
    const ws = new WebSocket(url);
    socket = ws;
    ws.onmessage = (ev) => {
      let parsed: ReturnType<typeof serverMessage.safeParse>;
      try {
        parsed = serverMessage.safeParse(JSON.parse(String(ev.data)));
      } catch {
        return;
      }
      if (!parsed.success) return;
      const msg = parsed.data;
      if (msg.type === 'hello') {
        failures = 0;
        setState('online');
      } else if (msg.type === 'events') {
        for (const e of msg.events) listeners.emit(e.topic, e.payload as never);
      }
    };
    ws.onopen = () => {
      ping = setInterval(() => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify({ type: 'ping' })), PING_MS);
    };
    ws.onclose = () => {
      if (ping) clearInterval(ping);
      ping = null;
      if (socket !== ws) return;
      socket = null;
      void closedBecauseRefused().then((wasRefused) => {
        if (closed || suspended || wasRefused) return;
        retryLater();
      });
    };
  }
  if (!suspended) connect();

  return {
    async call<M extends ApiMethod>(method: M, input: ApiInput<M>): Promise<ApiOutputs[M]> {
      let res: Response;
      try {
        res = await fetch(new URL(`/api/call/${method}`, base), {
          method: 'POST',
          headers: headers(),
          body: JSON.stringify(input),
        });
      } catch {
        throw new ApiError(
          transportError('The Shotfarm server cannot be reached; check that `shotfarm serve` is running.'),
        );
      }
      let body: unknown;
      try {
        body = await res.json();
      } catch {
        throw new ApiError(
          transportError(`The server answered ${res.status} without a readable body.`, res.status >= 500),
        );
      }
      refused(res.status, body);
      const answer = callAnswer.safeParse(body);
      if (!answer.success)
        throw new ApiError(transportError(`The server answered ${res.status} with an unexpected body.`, false));
      if (!answer.data.ok) throw new ApiError(answer.data.error);
      return answer.data.result as ApiOutputs[M];
    },
    async uploadInput(sha256: string, name: string, file: Blob): Promise<void> {
      const h: Record<string, string> = { 'content-type': 'application/octet-stream' };
      if (token) h.authorization = `Bearer ${token}`;
      else h[CSRF_HEADER] = '1';
      let res: Response;
      try {
        res = await fetch(new URL(uploadPath(sha256, name), base), { method: 'PUT', headers: h, body: file });
      } catch {
        throw new ApiError(transportError(`${name} could not be sent: the Shotfarm server cannot be reached.`));
      }
      if (res.ok) return;
      const body: unknown = await res.json().catch(() => null);
      refused(res.status, body);
      const answer = callAnswer.safeParse(body);
      throw new ApiError(
        answer.success && !answer.data.ok
          ? answer.data.error
          : transportError(`The server answered ${res.status} to the upload of ${name}.`, res.status >= 500),
      );
    },
    subscribe<T extends EventTopic>(topic: T, fn: (payload: EventMap[T]) => void) {
      return listeners.add(topic, fn);
    },
    onConnection(fn) {
      connectionFns.add(fn);
      fn(state);
      return () => connectionFns.delete(fn);
    },
    async info(): Promise<ServerInfo> {
      const res = await fetch(new URL('/api/info', base), { headers: headers() });
      const body: unknown = await res.json().catch(() => null);
      const info = infoSchema.safeParse(body);
      if (info.success) return info.data;
      refused(res.status, body);
      const answer = callAnswer.safeParse(body);
      throw new ApiError(
        answer.success && !answer.data.ok ? answer.data.error : transportError(`The server answered ${res.status}.`),
      );
    },
    exportUrl(kind, filter) {
      const url = new URL(`/api/export/${kind}`, base);
      url.search = exportFilterToQuery(filter).toString();
      const ticket = files?.current();
      if (ticket) url.searchParams.set('ticket', ticket);
      return link(url);
    },
    assetUrl(id) {
      const url = new URL(`/files/asset/${encodeURIComponent(id)}`, base);
      const ticket = files?.current();
      if (ticket) url.searchParams.set('ticket', ticket);
      return link(url);
    },
    linksReady: files ? files.ready : Promise.resolve(),
    suspend() {
      if (suspended) return;
      suspended = true;
      generation++;
      if (reconnect) clearTimeout(reconnect);
      reconnect = null;
      const ws = socket;
      socket = null;
      ws?.close();
      setState('connecting');
    },
    resume() {
      if (!suspended || closed) return;
      suspended = false;
      failures = 0;
      connect();
    },
    close() {
      closed = true;
      generation++;
      files?.close();
      if (reconnect) clearTimeout(reconnect);
      reconnect = null;
      if (ping) clearInterval(ping);
      ping = null;
      const ws = socket;
      socket = null;
      ws?.close();
      setState('offline');
    },
  };
}
