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
  form?: FormData;
}

export interface RawResponse {
  status: number;
  text: string;
}

/** A deadline covering the whole exchange, merged with the caller's signal. */
export class Deadline {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onCallerAbort: () => void;
  timedOut = false;

  constructor(timeoutMs: number, private readonly caller: AbortSignal | undefined) {
    this.timeoutMs = timeoutMs;
    this.signal = this.controller.signal;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new DOMException('deadline', 'TimeoutError'));
    }, timeoutMs);
    this.onCallerAbort = () => this.controller.abort(caller?.reason);
    if (caller?.aborted) this.onCallerAbort();
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
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
 * Sends a request and reads the whole body as text. Every route except /view answers a small
 * body, so buffering is fine here; downloads use `openStream`.
 */
export async function send(t: Transport, args: SendArgs, opts: CallOptions = {}): Promise<RawResponse> {
  const route = routeName(args.method, args.path);
  const deadline = new Deadline(opts.timeoutMs ?? t.timeoutMs, opts.signal);
  try {
    const headers: Record<string, string> = {};
    let body: string | FormData | undefined;
    if (args.form) body = args.form;
    else if (args.json !== undefined) {
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
    const text = await res.body.text();
    return { status: res.statusCode, text };
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
    throw new ComfyRequestError({ kind: 'malformed', detail: `the answer is not JSON (${Buffer.byteLength(res.text)} bytes)` }, route);
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
