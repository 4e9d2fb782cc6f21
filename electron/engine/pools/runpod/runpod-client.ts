/**
 * The HTTP client of one RunPod serverless endpoint (`<api base>/<endpoint id>/<operation>`):
 * /run, /status/{id}, /cancel/{id}, /health. Every answer is validated; every failure becomes a
 * RunpodHttpError carrying the HTTP status (0 when nothing answered) and Retry-After. The API key
 * goes in the Authorization header only: it is never put in a message, a log line or an error.
 */
import type { z } from 'zod';
import { ShotfarmError } from '../../../../shared/errors.js';
import { send, type RawResponse } from '../../comfy/http.js';
import { ComfyRequestError, describeFailure } from '../../comfy/observation.js';
import {
  healthAnswerSchema,
  runAnswerSchema,
  RUN_BODY_LIMIT_BYTES,
  RUNPOD_ANSWER_LIMITS,
  statusAnswerSchema,
  type RunpodRoute,
  type HealthAnswer,
  type StatusAnswer,
  type WorkerInput,
} from './runpod-protocol.js';

export class RunpodHttpError extends Error {
  constructor(
    readonly route: RunpodRoute,
    /** 0: no answer (refused, reset, timed out, aborted). */
    readonly status: number,
    message: string,
    /** From a Retry-After header (seconds or a date), in ms; null when absent. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }

  get rejectedKey(): boolean {
    return this.status === 401 || this.status === 403;
  }

  /** 429 and 5xx (and no answer at all) are worth asking again after a backoff. */
  get transient(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

export interface RunpodClientOptions {
  apiBase: string;
  endpointId: string;
  /** Read at every request, so a key set while the farm runs applies at once; null: none configured. */
  apiKey: () => string | null;
  timeoutMs: number;
  /** Why there is no key for this endpoint when apiKey() gives none (cloud/api-base.ts KEY_WITHHELD). */
  noKeyWords?: string;
}

/** Retry-After as RFC 9110 allows it: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null;
  const s = Number(value.trim());
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

export class RunpodClient {
  constructor(private readonly o: RunpodClientOptions) {}

  get endpointId(): string {
    return this.o.endpointId;
  }

  /** Submits a job; refuses (bad_input, nothing sent) a body above RunPod's /run cap. */
  async run(input: WorkerInput, signal?: AbortSignal): Promise<{ id: string; status: string }> {
    const body = JSON.stringify({ input });
    const bytes = Buffer.byteLength(body);
    if (bytes > RUN_BODY_LIMIT_BYTES) {
      throw new ShotfarmError(
        'bad_input',
        `the /run request would be ${(bytes / 1024 / 1024).toFixed(1)} MB; RunPod caps /run bodies at ${RUN_BODY_LIMIT_BYTES / 1024 / 1024} MB — use smaller input images (they travel as base64) or a LAN workstation`,
      );
    }
    return this.request('POST /run', 'run', runAnswerSchema, signal, body);
  }

  status(id: string, signal?: AbortSignal): Promise<StatusAnswer> {
    return this.request('GET /status', `status/${encodeURIComponent(id)}`, statusAnswerSchema, signal);
  }

  /** Cancels one of our jobs (by its id: never anything else on the endpoint). */
  async cancel(id: string, signal?: AbortSignal): Promise<void> {
    await this.request('POST /cancel', `cancel/${encodeURIComponent(id)}`, null, signal, '');
  }

  health(signal?: AbortSignal): Promise<HealthAnswer> {
    return this.request('GET /health', 'health', healthAnswerSchema, signal);
  }

  private async request<T>(
    route: RunpodRoute,
    path: string,
    schema: z.ZodType<T> | null,
    signal: AbortSignal | undefined,
    body?: string,
  ): Promise<T> {
    const key = this.o.apiKey();
    if (!key)
      throw new RunpodHttpError(
        route,
        401,
        this.o.noKeyWords ?? 'no RunPod API key is configured (set RUNPOD_API_KEY, or shotfarm workers runpod-key)',
      );
    const transport = {
      baseUrl: `${this.o.apiBase}/${this.o.endpointId}`,
      timeoutMs: this.o.timeoutMs,
      dispatcher: undefined,
    };
    let res: RawResponse;
    try {
      // The ComfyUI client's sender: one deadline over the whole exchange, the answer capped per route as it arrives.
      res = await send(
        transport,
        {
          method: body === undefined ? 'GET' : 'POST',
          path: `/${path}`,
          headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
          ...(body !== undefined ? { jsonText: body } : {}),
        },
        { maxBytes: RUNPOD_ANSWER_LIMITS[route], ...(signal ? { signal } : {}) },
      );
    } catch (err) {
      if (!(err instanceof ComfyRequestError)) throw err;
      // A body over the cap came from a server that answered: like one that is not JSON, worth a retry later.
      const answered = err.failure.kind === 'malformed';
      throw new RunpodHttpError(route, answered ? 502 : 0, `${route}: ${describeFailure(err.failure)}`);
    }
    if (res.status < 200 || res.status > 299) {
      const retryAfter = parseRetryAfter(res.retryAfter, Date.now());
      // The status only, never the body: the base may be some other service, whose answer is not ours to show.
      const words = res.status === 401 || res.status === 403 ? 'API key rejected' : describeStatus(res.status);
      throw new RunpodHttpError(route, res.status, `${route} answered HTTP ${res.status}: ${words}`, retryAfter);
    }
    if (!schema) return undefined as T;
    let json: unknown;
    try {
      json = JSON.parse(res.text);
    } catch {
      throw new RunpodHttpError(
        route,
        502,
        `${route} answered something that is not JSON (${Buffer.byteLength(res.text)} bytes)`,
      );
    }
    const parsed = schema.safeParse(json);
    // The first issue's path and code, not its message: zod quotes received values in some messages.
    if (!parsed.success)
      throw new RunpodHttpError(route, 502, `${route} answered an unexpected shape (${issueWhere(parsed.error)})`);
    return parsed.data;
  }
}

/** A status's plain meaning, for an error that may not quote the body. */
function describeStatus(status: number): string {
  if (status === 404) return 'no such endpoint or job';
  if (status === 429) return 'too many requests';
  if (status >= 500) return 'RunPod had a server error';
  return 'the request was refused';
}

function issueWhere(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'no detail';
  return `${issue.path.length ? issue.path.join('.') : 'the answer'}: ${issue.code}`;
}
