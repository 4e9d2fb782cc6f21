// The one place that talks HTTP: builds undici requests, enforces a deadline, and turns every
// thrown error into a ComfyRequestError carrying an observation.
//
// Deliberately never sets an `Origin` header: ComfyUI's origin middleware answers 403 when an
// Origin's host differs from Host (protocol §13), and a scheduler is not a browser.
import { request, type Dispatcher, type FormData } from 'undici';
import { ComfyRequestError, failureFromError } from './observation.js';

export interface CallOptions {
  /** Caller's cancellation; a fired signal yields `{kind:'aborted'}`. */
  signal?: AbortSignal;
  /** Overrides the client's default deadline for this call. */
  timeoutMs?: number;
  /** The largest answer taken (bytes); default the route's limit (answerLimit). */
  maxBytes?: number;
}

const KB = 1024;
const MB = 1024 * 1024;

/**
 * The largest answer read per route: what ComfyUI sends there, with a wide margin. A larger body is
 * refused as it arrives (`malformed`), never buffered whole — a hostile or broken server once sent
 * a 300 MB /system_stats and a 600 MB /history and took the engine to 1.4 GB. /object_info is the
 * one legitimately large answer (several MB with many custom nodes and model lists): its limit is
 * the farm setting object_info_max_mb, passed by the caller. /view streams to a file and is bounded
 * there (output_max_gb).
 */
export function answerLimit(method: string, path: string): number {
  if (path === '/system_stats' || path === '/features' || path === '/upload/image') return 1 * MB;
  if (path === '/prompt') return method === 'POST' ? 16 * MB : 64 * KB; // a 400 lists every node's errors
  if (path === '/queue') return method === 'POST' ? 64 * KB : 64 * MB; // each queued item carries its whole workflow
  if (path === '/history') return method === 'POST' ? 64 * KB : 64 * MB;
  if (path.startsWith('/history/')) return 32 * MB;
  if (path === '/object_info') return 64 * MB;
  if (path === '/internal/logs/raw') return 4 * MB; // 300 entries; one may be a whole traceback
  if (path.startsWith('/object_info/')) return 8 * MB;
  return 64 * KB; // /interrupt, /free: empty answers
}

export function formatLimit(bytes: number): string {
  return bytes >= MB ? `${+(bytes / MB).toFixed(1)} MB` : `${Math.round(bytes / KB)} kB`;
}

/** A body that announces or reaches more than the route takes. */
function tooLarge(route: string, limit: number): ComfyRequestError {
  return new ComfyRequestError(
    { kind: 'malformed', detail: `the answer is larger than ${formatLimit(limit)}, the most taken from ${route}` },
    route,
  );
}

type Body = Dispatcher.ResponseData['body'];

/** Drops a body we will not read: destroyed, and the error that destroying emits is listened for (an unheard one ends the process). */
export function discardBody(body: Body): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** Reads a whole body as text, refusing it as soon as it is over `limit` (announced or received). */
export async function readCapped(res: Dispatcher.ResponseData, limit: number, route: string): Promise<string> {
  const announced = Number(res.headers['content-length']);
  if (Number.isFinite(announced) && announced > limit) {
    discardBody(res.body);
    throw tooLarge(route, limit);
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    bytes += chunk.byteLength;
    if (bytes > limit) {
      discardBody(res.body);
      throw tooLarge(route, limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, bytes).toString('utf8');
}

export interface Transport {
  baseUrl: string;
  timeoutMs: number;
  dispatcher: Dispatcher | undefined;
}

export interface SendArgs {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined>;
  /** A JSON value is serialised; FormData is sent as multipart. */
  json?: unknown;
  /** A body already serialised as JSON (a caller that measured it first). */
  jsonText?: string;
  form?: FormData;
  /** Extra request headers (RunPod's Authorization). Never logged, never put into an error. */
  headers?: Record<string, string>;
}

export interface RawResponse {
  status: number;
  text: string;
  /** Retry-After, when the server sent one (RunPod's 429). */
  retryAfter: string | null;
  /** The answer's `Date` header (the server's UTC clock, 1 s resolution), when it sent one. */
  date: string | null;
}

/**
 * How late the deadline's own timer may fire before the lateness counts as this process not
 * running (ms): far above a timer's ordinary delay on a busy loop.
 */
export const STALLED_MS = 50;

/**
 * A deadline covering the whole exchange, merged with the caller's signal. It counts only time this
 * process was running: when its timer fires late (the event loop stalled — a long GC, a long
 * synchronous step, a frozen process), the exchange gets that lateness back (up to one more
 * deadline) before it is judged, so an answer that arrived during the stall is read first (timers
 * run before the loop reads its sockets). Without it a stall of the engine failed every request in flight at once, as if each
 * server had not answered: a probe (the workstation left out until its next probe), a RunPod /run
 * that had queued its job (sent again).
 */
export class Deadline {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout;
  private readonly onCallerAbort: () => void;
  timedOut = false;

  constructor(
    timeoutMs: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    this.timeoutMs = timeoutMs;
    this.signal = this.controller.signal;
    this.timer = this.arm(timeoutMs);
    this.onCallerAbort = () => this.controller.abort(caller?.reason);
    if (caller?.aborted) this.onCallerAbort();
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  private arm(ms: number): NodeJS.Timeout {
    const due = performance.now() + ms;
    return setTimeout(() => {
      const late = performance.now() - due;
      // The stall back, up to one whole deadline: after a long freeze what was answered is read at
      // once, and a server that is really gone is not waited for as long as the freeze lasted.
      if (late > STALLED_MS) {
        this.timer = this.arm(Math.min(late, this.timeoutMs));
        return;
      }
      this.timedOut = true;
      this.controller.abort(new DOMException('deadline', 'TimeoutError'));
    }, ms);
  }

  /** The observation for an error thrown while this deadline was active. */
  fail(err: unknown, route: string): ComfyRequestError {
    if (err instanceof ComfyRequestError) return err;
    const failure = failureFromError(err, {
      timeoutMs: this.timeoutMs,
      timedOut: this.timedOut,
      callerAborted: this.caller?.aborted === true && !this.timedOut,
    });
    return new ComfyRequestError(failure, route, { cause: err });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}

export function buildUrl(baseUrl: string, path: string, query?: SendArgs['query']): string {
  const url = new URL(baseUrl.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

export function routeName(method: string, path: string): string {
  return `${method} ${path}`;
}

/**
 * Sends a request and reads the whole body as text, up to the route's limit (answerLimit, or the
 * caller's `maxBytes`). Downloads (/view) stream instead (ComfyClient.downloadView).
 */
export async function send(t: Transport, args: SendArgs, opts: CallOptions = {}): Promise<RawResponse> {
  const route = routeName(args.method, args.path);
  const deadline = new Deadline(opts.timeoutMs ?? t.timeoutMs, opts.signal);
  try {
    const headers: Record<string, string> = { ...args.headers };
    let body: string | FormData | undefined;
    if (args.form) body = args.form;
    else if (args.jsonText !== undefined) {
      body = args.jsonText;
      headers['content-type'] = 'application/json';
    } else if (args.json !== undefined) {
      body = JSON.stringify(args.json);
      headers['content-type'] = 'application/json';
    }
    const res = await request(buildUrl(t.baseUrl, args.path, args.query), {
      method: args.method,
      headers,
      body,
      signal: deadline.signal,
      ...(t.dispatcher ? { dispatcher: t.dispatcher } : {}),
    });
    const text = await readCapped(res, opts.maxBytes ?? answerLimit(args.method, args.path), route);
    const retryAfter = res.headers['retry-after'];
    const date = res.headers['date'];
    return {
      status: res.statusCode,
      text,
      retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
      date: typeof date === 'string' ? date : null,
    };
  } catch (err) {
    throw deadline.fail(err, route);
  } finally {
    deadline.dispose();
  }
}

/** JSON.parse, or null for an empty / non-JSON body (kept for error reports). */
export function tryParseJson(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** Throws `http` for non-2xx, `malformed` for a 2xx that is not JSON; returns the parsed body. */
export function expectJson(res: RawResponse, route: string): unknown {
  if (res.status < 200 || res.status > 299) throw httpError(res, route);
  try {
    return JSON.parse(res.text) as unknown;
  } catch {
    // Never the body itself: the URL may point at some other service, whose answer is not ours to show.
    throw new ComfyRequestError(
      { kind: 'malformed', detail: `the answer is not JSON (${Buffer.byteLength(res.text)} bytes)` },
      route,
    );
  }
}

/** For the routes that answer 200 with an empty body (POST /queue, /history, /interrupt, /free). */
export function expectOk(res: RawResponse, route: string): void {
  if (res.status < 200 || res.status > 299) throw httpError(res, route);
}

export function httpError(res: RawResponse, route: string): ComfyRequestError {
  return new ComfyRequestError(
    { kind: 'http', status: res.status, body: tryParseJson(res.text), bodyText: res.text },
    route,
  );
}
