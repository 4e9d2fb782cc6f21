// One WebSocket to one ComfyUI server (protocol §3, SPEC §4.3–4.6), shared by every prompt
// Shotfarm follows there: opened once — when the workstation becomes healthy — and kept open,
// reconnecting with backoff; each attempt subscribes by prompt id and gets that prompt's frames,
// the broadcasts (`status`) and the connection's ups and downs. Attempts pay no socket set-up.
//
// The socket is only a low-latency hint; /queue and /history are the truth. So this class
// reports what it sees (typed events, disconnects, reconnects) and never concludes anything
// about a run — the attempt re-polls on `reconnected` and on a timer.
//
// Invariants:
// - Every connection uses a FRESH clientId. Reusing one while the old socket may still be
//   registered server-side hits the cleanup trap: the old handler's exit unregisters the new
//   socket, which then stays open but silent (recorded in ws_old_socket_closes_after_reconnect).
//   Prompts posted under an earlier id get no targeted frames after a reconnect — only broadcasts:
//   their attempts then rely on `status` and polling (prompt-end.ts), and `inRun` is reset.
// - Routing is by prompt id. A frame without one is a broadcast (`status`: to every subscriber)
//   or unattributable (the reconnect `executing` replay: dropped); a preview or text frame
//   without metadata goes to the prompts running on this connection (all, if none is).
// - Time and randomness are injected (`now`, `sleep`, `timers`, `random`) so backoff is testable.
import WebSocket from 'ws';
import { systemTimers, type Timers } from '../clock.js';
import { ComfyRequestError, failureFromError, type ComfyFailure } from './observation.js';
import { abortableSleep, fullJitterDelay, type BackoffPolicy } from './backoff.js';
import { decodeBinaryFrame } from './binary-frames.js';
import { EventQueue } from './event-queue.js';
import { parseWsFrame, promptIdOf, type EventContext, type FollowEvent } from './ws-events.js';

export interface SocketOptions {
  /** The server's HTTP base URL (`http://host:8188`); `ws://` / `wss://` is derived from it. */
  baseUrl: string;
  /** A fresh client id for each connection (must differ on every call). */
  newClientId: () => string;
  /** [0, 1). Default Math.random. */
  random?: () => number;
  /** Default: a timer that resolves early on abort. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Milliseconds (the engine's clock). Default performance.now. */
  now?: () => number;
  /** Ping and pong timers. Default unref'd system timers. */
  timers?: Timers;
  /** Reconnect backoff (full jitter). Default base 500 ms, cap 10 s. */
  backoff?: Partial<BackoffPolicy>;
  /** Stop reconnecting after this long without an open socket: `lost` to every subscriber, streams end. Default never. */
  giveUpAfterMs?: number;
  /** Ping period; a pong must arrive within `pingTimeoutMs` or the link is dead. Default 10 s / 5 s. */
  pingIntervalMs?: number;
  pingTimeoutMs?: number;
  /** WebSocket handshake deadline. Default 5 s. */
  connectTimeoutMs?: number;
  /** Send `feature_flags {supports_preview_metadata}` so newer servers tag previews with prompt_id. Default true. */
  announcePreviewMetadata?: boolean;
  /**
   * The JSON frame types the subscribers use; others are dropped before they are validated (a
   * frame costs its schema check only when someone reads it). Default: every known type.
   */
  types?: ReadonlySet<string> | null;
}

export function wsUrl(baseUrl: string, clientId: string): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/ws`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('clientId', clientId);
  return url.toString();
}

/** A frame's type when it comes first, as ComfyUI writes it (a plain name: no escapes to read). */
const FRAME_TYPE = /^\s*\{\s*"type"\s*:\s*"([A-Za-z0-9_]+)"/;

/** One prompt's view of the socket: its frames, the broadcasts, the connection's ups and downs. */
export class Subscription implements AsyncIterable<FollowEvent> {
  /** This prompt's execution_start was seen on the current connection, its end not yet. */
  inRun = false;
  readonly queue: EventQueue<FollowEvent>;

  constructor(
    readonly promptId: string,
    private readonly unsubscribe: (s: Subscription) => void,
  ) {
    this.queue = new EventQueue<FollowEvent>(() => this.close());
  }

  [Symbol.asyncIterator](): AsyncIterator<FollowEvent> {
    return this.queue[Symbol.asyncIterator]();
  }

  /** No more events for this prompt. Idempotent. */
  close(): void {
    if (this.queue.isEnded) return;
    this.queue.end();
    this.unsubscribe(this);
  }
}

type Opened =
  | { ok: true; ws: WebSocket; closed: Promise<string> }
  | { ok: false; failure: ComfyFailure; reason: string };

export class StationSocket {
  private readonly o: Required<Omit<SocketOptions, 'backoff'>> & { backoff: BackoffPolicy };
  private readonly byPrompt = new Map<string, Set<Subscription>>();
  private readonly stop = new AbortController();
  private socket: WebSocket | null = null;
  private connection = 0;
  private currentClientId: string | null = null;
  private lastFrameAt: number | null = null;
  private readonly openWaiters = new Set<() => void>();
  private readonly readyPromise: Promise<void>;
  private settleReady!: (err?: ComfyRequestError) => void;

  constructor(opts: SocketOptions) {
    // `??` rather than spreading: an explicit `undefined` option must still get its default.
    this.o = {
      baseUrl: opts.baseUrl,
      newClientId: opts.newClientId,
      random: opts.random ?? Math.random,
      sleep: opts.sleep ?? abortableSleep,
      now: opts.now ?? (() => performance.now()),
      timers: opts.timers ?? systemTimers,
      giveUpAfterMs: opts.giveUpAfterMs ?? Number.POSITIVE_INFINITY,
      pingIntervalMs: opts.pingIntervalMs ?? 10_000,
      pingTimeoutMs: opts.pingTimeoutMs ?? 5_000,
      connectTimeoutMs: opts.connectTimeoutMs ?? 5_000,
      announcePreviewMetadata: opts.announcePreviewMetadata ?? true,
      types: opts.types ?? null,
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

  /** The clientId of the open socket — post prompts with this one. Null while not connected. */
  get clientId(): string | null {
    return this.currentClientId;
  }

  /**
   * When the open socket last delivered a frame (any frame, read or dropped unparsed), on the
   * injected clock; null while not connected or before its first frame.
   */
  get spokeAt(): number | null {
    return this.lastFrameAt;
  }

  get isClosed(): boolean {
    return this.stop.signal.aborted;
  }

  /** Prompts with an open subscription (closed ones leave none behind). */
  get followed(): number {
    return this.byPrompt.size;
  }

  /**
   * The open socket's client id, waiting at most `ms` (on the injected sleep) for one to open;
   * null when none is open by then (the caller posts anyway and relies on polling).
   */
  async openClientId(ms: number): Promise<string | null> {
    if (this.currentClientId !== null || this.isClosed || ms <= 0) return this.currentClientId;
    const waited = new AbortController();
    const opened = new Promise<void>((resolve) => this.openWaiters.add(resolve));
    await Promise.race([opened, this.o.sleep(ms, waited.signal)]);
    waited.abort();
    return this.currentClientId;
  }

  /** Frames of `promptId` (and the broadcasts) from now on, until the subscription or the socket is closed. */
  subscribe(promptId: string): Subscription {
    const sub = new Subscription(promptId, (s) => this.unsubscribe(s));
    if (this.isClosed) {
      sub.queue.end();
      return sub;
    }
    let set = this.byPrompt.get(promptId);
    if (!set) this.byPrompt.set(promptId, (set = new Set()));
    set.add(sub);
    return sub;
  }

  /** A closed subscription leaves; its prompt's entry goes with the last one (broadcasts walk them all). */
  private unsubscribe(sub: Subscription): void {
    const set = this.byPrompt.get(sub.promptId);
    if (!set) return;
    set.delete(sub);
    if (set.size === 0) this.byPrompt.delete(sub.promptId);
  }

  /** Ends every subscription (no `lost` event) and closes the socket. Idempotent. */
  close(): void {
    if (this.isClosed) return;
    this.stop.abort();
    this.socket?.terminate();
    this.settleReady(new ComfyRequestError({ kind: 'aborted' }, 'GET /ws'));
    for (const sub of this.all()) sub.close();
    for (const w of this.openWaiters) w();
  }

  private all(): Subscription[] {
    return [...this.byPrompt.values()].flatMap((s) => [...s]);
  }

  private toAll(ev: FollowEvent): void {
    for (const sub of this.all()) sub.queue.push(ev);
  }

  private async run(): Promise<void> {
    const { now, backoff } = this.o;
    let failures = 0;
    let downSince = now();
    let lastReason = 'not connected yet';
    let lastFailure: ComfyFailure = { kind: 'refused' };
    while (!this.isClosed) {
      const opened = await this.open(this.o.newClientId());
      if (this.isClosed) {
        if (opened.ok) opened.ws.terminate();
        return;
      }
      if (opened.ok) {
        failures = 0;
        this.settleReady();
        const reason = await opened.closed;
        this.socket = null;
        this.currentClientId = null;
        this.lastFrameAt = null;
        for (const sub of this.all()) sub.inRun = false;
        if (this.isClosed) return;
        this.toAll({ type: 'disconnected', reason, connection: this.connection });
        downSince = now();
        lastReason = reason;
      } else {
        failures += 1;
        lastReason = opened.reason;
        lastFailure = opened.failure;
      }
      const downFor = now() - downSince;
      if (downFor >= this.o.giveUpAfterMs) {
        this.toAll({ type: 'lost', reason: lastReason, disconnectedForMs: downFor });
        this.settleReady(new ComfyRequestError(lastFailure, 'GET /ws'));
        this.close();
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
      const ws = new WebSocket(wsUrl(this.o.baseUrl, clientId), {
        handshakeTimeout: timeoutMs,
        perMessageDeflate: false,
      });
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
        if (this.connection > 1) this.toAll({ type: 'reconnected', clientId, connection: this.connection });
        finish({ ok: true, ws, closed: this.pump(ws, clientId, this.connection) });
        for (const w of this.openWaiters) w();
        this.openWaiters.clear();
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

  /** Routes a frame about no particular prompt (previews, text without metadata) to the prompts running now. */
  private toRunning(make: (ctx: EventContext) => FollowEvent, connection: number, clientId: string): void {
    const all = this.all();
    const running = all.filter((s) => s.inRun);
    for (const sub of running.length ? running : all) sub.queue.push(make({ connection, clientId, inRun: sub.inRun }));
  }

  /**
   * A text frame, parsed and validated only when a subscriber wants it: a type it reads, about a
   * prompt it follows (or a broadcast). Null when nobody does.
   */
  private parseWanted(text: string): ReturnType<typeof parseWsFrame> | null {
    // Most frames of a run are of types nobody here reads (ComfyUI's progress_state: every node's
    // state, at every sampler step). ComfyUI writes `{"type": …, "data": …}`, type first: such a
    // frame is dropped on its type alone, its data never parsed. Any other layout is parsed whole.
    const sniffed = this.o.types === null ? undefined : FRAME_TYPE.exec(text)?.[1];
    if (sniffed !== undefined && !this.o.types?.has(sniffed)) return null;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return null;
    }
    if (typeof raw !== 'object' || raw === null) return null;
    const { type, data } = raw as { type?: unknown; data?: { prompt_id?: unknown } };
    if (typeof type !== 'string' || (this.o.types !== null && !this.o.types.has(type))) return null;
    const promptId = typeof data === 'object' && data !== null ? data.prompt_id : undefined;
    if (typeof promptId === 'string' && !this.byPrompt.get(promptId)?.size) return null;
    return parseWsFrame(raw);
  }

  /** Pumps one open socket into the subscriptions; resolves with why it ended. */
  private pump(ws: WebSocket, clientId: string, connection: number): Promise<string> {
    const { timers } = this.o;
    let reason = 'closed';
    let pingTimer: unknown = null;
    let pongTimer: unknown = null;

    if (this.o.announcePreviewMetadata) {
      ws.send(JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true } }));
    }

    ws.on('message', (data, isBinary) => {
      this.lastFrameAt = this.o.now();
      if (isBinary) {
        // ws's default binaryType is 'nodebuffer'; fragmented frames arrive as Buffer[].
        const bytes = Array.isArray(data)
          ? Buffer.concat(data)
          : data instanceof ArrayBuffer
            ? new Uint8Array(data)
            : data;
        const frame = decodeBinaryFrame(bytes);
        if (frame.type === 'preview') {
          const promptId = frame.metadata?.promptId ?? null;
          const ev = (ctx: EventContext): FollowEvent => ({
            type: 'preview',
            format: frame.format,
            bytes: frame.bytes,
            promptId,
            metadata: frame.metadata,
            ...ctx,
          });
          if (promptId === null) this.toRunning(ev, connection, clientId);
          else
            for (const sub of this.byPrompt.get(promptId) ?? [])
              sub.queue.push(ev({ connection, clientId, inRun: sub.inRun }));
        } else if (frame.type === 'text') {
          this.toRunning(
            (ctx) => ({ type: 'text', nodeId: frame.nodeId, text: frame.text, ...ctx }),
            connection,
            clientId,
          );
        }
        return; // unknown or malformed binary: nothing the engine can use
      }
      const parsed = this.parseWanted(data.toString());
      if (parsed === null || parsed.kind !== 'known') return;
      const m = parsed.message;
      if (m.type === 'feature_flags') return;
      if (m.type === 'status') {
        for (const sub of this.all()) sub.queue.push({ ...m, connection, clientId, inRun: sub.inRun });
        return;
      }
      const promptId = promptIdOf(m);
      if (promptId === null) return; // the reconnect replay `executing {node}`: whose, it does not say
      for (const sub of this.byPrompt.get(promptId) ?? []) {
        if (m.type === 'execution_start') sub.inRun = true;
        sub.queue.push({ ...m, connection, clientId, inRun: sub.inRun });
        if (m.type === 'executing' && m.data.node === null) sub.inRun = false;
      }
    });

    // Dead-link detection: ComfyUI sends no pings but answers ours.
    const ping = (): void => {
      pingTimer = timers.setTimeout(() => {
        ws.ping();
        pongTimer = timers.setTimeout(() => {
          reason = 'ping timeout';
          ws.terminate();
        }, this.o.pingTimeoutMs);
      }, this.o.pingIntervalMs);
    };
    ws.on('pong', () => {
      timers.clearTimeout(pongTimer);
      pongTimer = null;
      ping();
    });
    ping();

    return new Promise<string>((resolve) => {
      ws.on('error', (err) => {
        reason = `socket error: ${err.message}`;
        ws.terminate();
      });
      ws.on('close', (code) => {
        timers.clearTimeout(pingTimer);
        timers.clearTimeout(pongTimer);
        resolve(reason === 'closed' ? `closed (code ${code})` : reason);
      });
    });
  }
}
