// Follows one prompt over ComfyUI's WebSocket (protocol §3, SPEC §4.3–4.6).
//
// The socket is only a low-latency hint; /queue and /history are the truth. So this class
// reports what it sees (typed events, disconnects, reconnects) and never concludes anything
// about the run — the attempt runner re-polls /history on `reconnected` and on a timer.
//
// Invariants:
// - Every connection attempt uses a FRESH clientId. Reusing one while the old socket may still be
//   registered server-side hits the cleanup trap: the old handler's exit unregisters the new
//   socket, which then stays open but silent (recorded in ws_old_socket_closes_after_reconnect).
// - `ready()` resolves once the first socket is open, so the caller can post afterwards without
//   missing events that arrive before the HTTP response.
// - Time and randomness are injected (`now`, `sleep`, `random`) so backoff is testable.
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { ComfyRequestError, failureFromError, type ComfyFailure } from './observation.js';
import { abortableSleep, fullJitterDelay, type BackoffPolicy } from './backoff.js';
import { decodeBinaryFrame } from './binary-frames.js';
import { EventQueue } from './event-queue.js';
import { parseWsText, promptIdOf, type FollowEvent } from './ws-events.js';

export interface FollowerOptions {
  /** The server's HTTP base URL (`http://host:8188`); `ws://` / `wss://` is derived from it. */
  baseUrl: string;
  promptId: string;
  /** Goes into every clientId, so server logs and /queue extra_data point back to the attempt. */
  attemptId: string;
  /** [0, 1). Default Math.random. */
  random?: () => number;
  /** Default: a timer that resolves early on abort. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Monotonic ms. Default performance.now. */
  now?: () => number;
  /** Reconnect backoff (full jitter). Default base 500 ms, cap 10 s. */
  backoff?: Partial<BackoffPolicy>;
  /** Stop reconnecting after this long without an open socket and emit `lost`. Default 120 s. */
  giveUpAfterMs?: number;
  /** Ping period; a pong must arrive within `pingTimeoutMs` or the link is dead. Default 10 s / 5 s. */
  pingIntervalMs?: number;
  pingTimeoutMs?: number;
  /** WebSocket handshake deadline. Default 5 s. */
  connectTimeoutMs?: number;
  /** Send `feature_flags {supports_preview_metadata}` so newer servers tag previews with prompt_id. Default true. */
  announcePreviewMetadata?: boolean;
  /** Default `clientIdForAttempt`. Must return a new id on every call. */
  newClientId?: (attemptId: string) => string;
}

/** `sf-<attempt>-<random>`: unique per connection, readable in server logs. */
export function clientIdForAttempt(attemptId: string): string {
  return `sf-${attemptId}-${randomBytes(6).toString('hex')}`;
}

export function wsUrl(baseUrl: string, clientId: string): string {
  const url = new URL(baseUrl.replace(/\/+$/, '') + '/ws');
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('clientId', clientId);
  return url.toString();
}

type Opened = { ok: true; ws: WebSocket; closed: Promise<string> } | { ok: false; failure: ComfyFailure; reason: string };

export class PromptFollower implements AsyncIterable<FollowEvent> {
  private readonly o: Required<Omit<FollowerOptions, 'backoff'>> & { backoff: BackoffPolicy };
  private readonly queue = new EventQueue<FollowEvent>(() => this.close());
  private readonly stop = new AbortController();
  private socket: WebSocket | null = null;
  private connection = 0;
  private everOpened = false;
  private currentClientId: string | null = null;
  private readonly readyPromise: Promise<void>;
  private settleReady!: (err?: ComfyRequestError) => void;

  constructor(opts: FollowerOptions) {
    // `??` rather than spreading: an explicit `undefined` option must still get its default.
    this.o = {
      baseUrl: opts.baseUrl,
      promptId: opts.promptId,
      attemptId: opts.attemptId,
      random: opts.random ?? Math.random,
      sleep: opts.sleep ?? abortableSleep,
      now: opts.now ?? (() => performance.now()),
      giveUpAfterMs: opts.giveUpAfterMs ?? 120_000,
      pingIntervalMs: opts.pingIntervalMs ?? 10_000,
      pingTimeoutMs: opts.pingTimeoutMs ?? 5_000,
      connectTimeoutMs: opts.connectTimeoutMs ?? 5_000,
      announcePreviewMetadata: opts.announcePreviewMetadata ?? true,
      newClientId: opts.newClientId ?? clientIdForAttempt,
      backoff: { baseMs: opts.backoff?.baseMs ?? 500, capMs: opts.backoff?.capMs ?? 10_000 },
    };
    this.readyPromise = new Promise<void>((resolve, reject) => {
      let settled = false;
      this.settleReady = (err) => {
        if (settled) return;
        settled = true;
        if (err) reject(err);
        else resolve();
      };
    });
    // Marked handled here; a caller awaiting ready() still sees the rejection.
    this.readyPromise.catch(() => {});
    void this.run();
  }

  /** Resolves when the first socket is open; rejects if it never opens before giving up or close(). */
  ready(): Promise<void> {
    return this.readyPromise;
  }

  /** The clientId of the open socket — post the prompt with this one. Null while not connected. */
  get clientId(): string | null {
    return this.currentClientId;
  }

  [Symbol.asyncIterator](): AsyncIterator<FollowEvent> {
    return this.queue[Symbol.asyncIterator]();
  }

  /** Ends the stream (no `lost` event) and closes the socket. Idempotent. */
  close(): void {
    if (this.stop.signal.aborted) return;
    this.stop.abort();
    this.socket?.terminate();
    this.settleReady(new ComfyRequestError({ kind: 'aborted' }, 'GET /ws'));
    this.queue.end();
  }

  private async run(): Promise<void> {
    const { now, backoff } = this.o;
    let failures = 0;
    let downSince = now();
    let lastReason = 'not connected yet';
    let lastFailure: ComfyFailure = { kind: 'refused' };
    while (!this.stop.signal.aborted) {
      const opened = await this.open(this.o.newClientId(this.o.attemptId));
      if (this.stop.signal.aborted) {
        if (opened.ok) opened.ws.terminate();
        return;
      }
      if (opened.ok) {
        failures = 0;
        this.settleReady();
        const reason = await opened.closed;
        this.socket = null;
        this.currentClientId = null;
        if (this.stop.signal.aborted) return;
        this.queue.push({ type: 'disconnected', reason, connection: this.connection });
        downSince = now();
        lastReason = reason;
      } else {
        failures += 1;
        lastReason = opened.reason;
        lastFailure = opened.failure;
      }
      const downFor = now() - downSince;
      if (downFor >= this.o.giveUpAfterMs) {
        this.queue.push({ type: 'lost', reason: lastReason, disconnectedForMs: downFor });
        this.settleReady(new ComfyRequestError(lastFailure, 'GET /ws'));
        this.queue.end();
        this.stop.abort();
        return;
      }
      // Never sleep past the give-up point: the last try happens right at the budget's end.
      const delay = Math.min(fullJitterDelay(failures, backoff, this.o.random), this.o.giveUpAfterMs - downFor);
      await this.o.sleep(delay, this.stop.signal);
    }
  }

  /** One connection attempt: resolves when the socket is open or has failed to open. */
  private open(clientId: string): Promise<Opened> {
    return new Promise<Opened>((resolve) => {
      const timeoutMs = this.o.connectTimeoutMs;
      // perMessageDeflate off: previews are already compressed; no Origin header (protocol §13).
      const ws = new WebSocket(wsUrl(this.o.baseUrl, clientId), { handshakeTimeout: timeoutMs, perMessageDeflate: false });
      let done = false;
      const finish = (r: Opened): void => {
        if (done) return;
        done = true;
        ws.off('open', onOpen);
        if (!r.ok) ws.terminate();
        resolve(r);
      };
      // Everything for the new connection happens synchronously in 'open': ws emits the first
      // 'message' right after it (often from the same TCP read), so a listener attached after an
      // await would miss the first frames.
      const onOpen = (): void => {
        this.connection += 1;
        this.socket = ws;
        this.currentClientId = clientId;
        if (this.everOpened) this.queue.push({ type: 'reconnected', clientId, connection: this.connection });
        this.everOpened = true;
        finish({ ok: true, ws, closed: this.follow(ws, clientId, this.connection) });
      };
      ws.on('open', onOpen);
      ws.on('unexpected-response', (req, res) => {
        res.resume();
        req.destroy();
        const failure: ComfyFailure = { kind: 'http', status: res.statusCode ?? 0, body: null, bodyText: '' };
        finish({ ok: false, failure, reason: `handshake answered HTTP ${res.statusCode ?? '?'}` });
      });
      ws.on('error', (err) => {
        const timedOut = /handshake has timed out/i.test(err.message);
        const failure = failureFromError(err, { timeoutMs, timedOut });
        finish({ ok: false, failure, reason: `connect failed: ${err.message}` });
      });
      ws.on('close', () => finish({ ok: false, failure: { kind: 'reset' }, reason: 'closed during handshake' }));
    });
  }

  /** Pumps one open socket into the queue; resolves with why it ended. */
  private follow(ws: WebSocket, clientId: string, connection: number): Promise<string> {
    let inRun = false;
    let reason = 'closed';
    let pingTimer: NodeJS.Timeout | undefined;
    let pongTimer: NodeJS.Timeout | undefined;
    const ctx = () => ({ connection, clientId, inRun });

    if (this.o.announcePreviewMetadata) {
      ws.send(JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true } }));
    }

    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        // ws's default binaryType is 'nodebuffer'; fragmented frames arrive as Buffer[].
        const bytes = Array.isArray(data) ? Buffer.concat(data) : data instanceof ArrayBuffer ? new Uint8Array(data) : data;
        const frame = decodeBinaryFrame(bytes);
        if (frame.type === 'preview') {
          const promptId = frame.metadata?.promptId ?? null;
          if (promptId !== null && promptId !== this.o.promptId) return;
          this.queue.push({ type: 'preview', format: frame.format, bytes: frame.bytes, promptId, metadata: frame.metadata, ...ctx() });
        } else if (frame.type === 'text') {
          this.queue.push({ type: 'text', nodeId: frame.nodeId, text: frame.text, ...ctx() });
        }
        return; // unknown or malformed binary: nothing the engine can use
      }
      const parsed = parseWsText(data.toString());
      if (parsed.kind !== 'known') return;
      const m = parsed.message;
      if (m.type === 'feature_flags') return;
      if (m.type !== 'status' && promptIdOf(m) !== this.o.promptId) return;
      if (m.type === 'execution_start') inRun = true;
      this.queue.push({ ...m, ...ctx() });
      if (m.type === 'executing' && m.data.node === null) inRun = false;
    });

    // Dead-link detection: ComfyUI sends no pings but answers ours.
    pingTimer = setInterval(() => {
      if (pongTimer) return;
      ws.ping();
      pongTimer = setTimeout(() => {
        reason = 'ping timeout';
        ws.terminate();
      }, this.o.pingTimeoutMs);
    }, this.o.pingIntervalMs);
    ws.on('pong', () => {
      clearTimeout(pongTimer);
      pongTimer = undefined;
    });

    return new Promise<string>((resolve) => {
      ws.on('error', (err) => {
        reason = `socket error: ${err.message}`;
        ws.terminate();
      });
      ws.on('close', (code) => {
        clearInterval(pingTimer);
        clearTimeout(pongTimer);
        resolve(reason === 'closed' ? `closed (code ${code})` : reason);
      });
    });
  }
}

/** Starts following `promptId`; await `ready()` before posting. */
export function followPrompt(opts: FollowerOptions): PromptFollower {
  return new PromptFollower(opts);
}
