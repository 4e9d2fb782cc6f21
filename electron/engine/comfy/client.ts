// Typed client for one ComfyUI server's HTTP API (protocol §1–§10). It reports what the server
// said; it never retries and never classifies failures — the engine does (conventions §4).
//
// Every method either returns a validated, typed value or throws ComfyRequestError carrying a
// ComfyFailure. The single exception is POST /prompt's validation 400, which is a normal answer
// (`{ok:false}`) because the engine must act on its node errors.
import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { FormData, request, type Dispatcher } from 'undici';
import { ComfyRequestError, failureFromError } from './observation.js';
import {
  buildUrl,
  Deadline,
  discardBody,
  expectJson,
  readCapped,
  expectOk,
  send,
  tryParseJson,
  type CallOptions,
  type Transport,
} from './http.js';
import { fileSink, pour, type DownloadSink } from './view-download.js';
import type { ObjectInfoCache } from './object-info-cache.js';
import {
  parseHistoryEntry,
  parseHistoryList,
  parsePromptRejection,
  parsePromptSuccess,
  parseQueue,
  validate,
} from './responses.js';
import type { HistoryEntry, PostPromptResult, QueueSnapshot } from './responses.js';
import {
  FeaturesSchema,
  ObjectInfoSchema,
  PromptQueueInfoSchema,
  RawLogsSchema,
  SystemStatsSchema,
  UploadImageSchema,
  type Features,
  type NodeInfo,
  type ObjectInfo,
  type SystemStats,
  type UploadedImage,
} from './schemas.js';

export type { CallOptions } from './http.js';
export type { DownloadSink } from './view-download.js';

export interface ComfyClientOptions {
  /** Default deadline per call (whole exchange); for downloads, the longest silence. Default 10 s. */
  timeoutMs?: number;
  /** An undici Agent/Pool, e.g. to tune keep-alive or share connections between clients. */
  dispatcher?: Dispatcher;
}

export interface PostPromptInput {
  /** API-format workflow: node id → `{class_type, inputs}`. */
  prompt: Record<string, unknown>;
  /** Client-chosen id (Shotfarm: the job id, a lowercase UUID). */
  promptId: string;
  /** The follower's clientId, so this run's events reach its socket. */
  clientId?: string;
  extraData?: Record<string, unknown>;
  /** Queue at the front (number = −counter). */
  front?: boolean;
  /** Explicit priority; the server echoes it as given and leaves its counter alone. */
  number?: number;
}

export interface ViewFile {
  filename: string;
  subfolder?: string;
  type?: string;
}

export interface UploadOptions {
  subfolder?: string;
  /** `input` (server default), `temp` or `output`. */
  type?: string;
  overwrite?: boolean;
}

/** What `GET /internal/logs/raw` answered: the entries `{t, m}` (oldest first) and the `Date` header, or its status. */
export type RawLogsAnswer =
  | { ok: true; entries: { t: string; m: string }[]; date: string | null }
  | { ok: false; status: number };

export class ComfyClient {
  private readonly t: Transport;

  constructor(
    readonly baseUrl: string,
    opts: ComfyClientOptions = {},
  ) {
    this.t = { baseUrl, timeoutMs: opts.timeoutMs ?? 10_000, dispatcher: opts.dispatcher };
  }

  /**
   * Queues a prompt. Register the follower (ws `ready()`) before calling: events may arrive
   * before this resolves. A 400 is returned as `{ok:false}`; anything else non-200 throws.
   */
  async postPrompt(input: PostPromptInput, opts?: CallOptions): Promise<PostPromptResult> {
    const route = 'POST /prompt';
    const body: Record<string, unknown> = { prompt: input.prompt, prompt_id: input.promptId };
    if (input.clientId !== undefined) body['client_id'] = input.clientId;
    if (input.extraData !== undefined) body['extra_data'] = input.extraData;
    if (input.front !== undefined) body['front'] = input.front;
    if (input.number !== undefined) body['number'] = input.number;
    const res = await send(this.t, { method: 'POST', path: '/prompt', json: body }, opts);
    if (res.status === 400) {
      const parsed = tryParseJson(res.text);
      // A 400 that is not ComfyUI's validation shape is reported as plain HTTP.
      if (parsed !== null && typeof parsed === 'object' && 'error' in parsed)
        return parsePromptRejection(parsed, route);
    }
    return parsePromptSuccess(expectJson(res, route), route);
  }

  /** GET /prompt: how many prompts are pending + running. */
  async getQueueRemaining(opts?: CallOptions): Promise<number> {
    const res = await send(this.t, { method: 'GET', path: '/prompt' }, opts);
    return validate(PromptQueueInfoSchema, expectJson(res, 'GET /prompt'), 'GET /prompt').exec_info.queue_remaining;
  }

  async getQueue(opts?: CallOptions): Promise<QueueSnapshot> {
    const res = await send(this.t, { method: 'GET', path: '/queue' }, opts);
    return parseQueue(expectJson(res, 'GET /queue'));
  }

  /** Removes pending items only; a running prompt must be interrupted instead. */
  async deleteFromQueue(promptIds: readonly string[], opts?: CallOptions): Promise<void> {
    await this.postOk('/queue', { delete: promptIds }, opts);
  }

  /** Empties the pending list (for every client of this server). */
  async clearQueue(opts?: CallOptions): Promise<void> {
    await this.postOk('/queue', { clear: true }, opts);
  }

  /** The stored run for this id, or null while it is queued, running or unknown (server sends `{}`). */
  async getHistory(promptId: string, opts?: CallOptions): Promise<HistoryEntry | null> {
    const path = `/history/${encodeURIComponent(promptId)}`;
    const res = await send(this.t, { method: 'GET', path }, opts);
    return parseHistoryEntry(expectJson(res, `GET ${path}`), promptId, 'GET /history/{id}');
  }

  /** Most recent `maxItems` entries (`offset` counts from the oldest, as ComfyUI does). */
  async getHistoryList(q: { maxItems?: number; offset?: number } = {}, opts?: CallOptions): Promise<HistoryEntry[]> {
    const query = { max_items: q.maxItems, offset: q.offset };
    const res = await send(this.t, { method: 'GET', path: '/history', query }, opts);
    return parseHistoryList(expectJson(res, 'GET /history'));
  }

  async deleteHistory(promptIds: readonly string[], opts?: CallOptions): Promise<void> {
    await this.postOk('/history', { delete: promptIds }, opts);
  }

  async clearHistory(opts?: CallOptions): Promise<void> {
    await this.postOk('/history', { clear: true }, opts);
  }

  /** A POST whose answer is only its status (the queue's and history's delete and clear). */
  private async postOk(path: string, json: unknown, opts?: CallOptions): Promise<void> {
    expectOk(await send(this.t, { method: 'POST', path, json }, opts), `POST ${path}`);
  }

  /**
   * Cooperative interrupt. With `promptId`, newer servers interrupt only if that id is running;
   * old servers ignore the body and interrupt whatever runs — check /queue first on those.
   * Without it the request has no body (a global interrupt on every version).
   */
  async interrupt(promptId?: string, opts?: CallOptions): Promise<void> {
    const json = promptId === undefined ? undefined : { prompt_id: promptId };
    const res = await send(this.t, { method: 'POST', path: '/interrupt', json }, opts);
    expectOk(res, 'POST /interrupt');
  }

  /** Asks the worker to unload models / drop caches when idle (applied later, not now). */
  async free(q: { unloadModels?: boolean; freeMemory?: boolean }, opts?: CallOptions): Promise<void> {
    const json = { unload_models: q.unloadModels ?? false, free_memory: q.freeMemory ?? false };
    const res = await send(this.t, { method: 'POST', path: '/free', json }, opts);
    expectOk(res, 'POST /free');
  }

  async getSystemStats(opts?: CallOptions): Promise<SystemStats> {
    const res = await send(this.t, { method: 'GET', path: '/system_stats' }, opts);
    return validate(SystemStatsSchema, expectJson(res, 'GET /system_stats'), 'GET /system_stats');
  }

  /**
   * Every installed node class. Large (MB) and slow: the server rescans model folders. With
   * `cache`, an answer of the same text as one already read is that list (not parsed again:
   * object-info-cache.ts).
   */
  async getObjectInfo(opts?: CallOptions, cache?: ObjectInfoCache): Promise<ObjectInfo> {
    const route = 'GET /object_info';
    const res = await send(this.t, { method: 'GET', path: '/object_info' }, opts);
    const parse = () => validate(ObjectInfoSchema, expectJson(res, route), route);
    // Only a 2xx is a list; anything else is reported by expectJson, never remembered.
    return cache && res.status >= 200 && res.status <= 299 ? cache.of(res.text, parse) : parse();
  }

  /** One class, or null when it is not installed (the server answers 200 `{}`). */
  async getObjectInfoClass(classType: string, opts?: CallOptions): Promise<NodeInfo | null> {
    const path = `/object_info/${encodeURIComponent(classType)}`;
    const res = await send(this.t, { method: 'GET', path }, opts);
    const info = validate(ObjectInfoSchema, expectJson(res, `GET ${path}`), 'GET /object_info/{class}');
    return info[classType] ?? null;
  }

  /** Server capability flags, or null on servers without the route (404). */
  async getFeatures(opts?: CallOptions): Promise<Features | null> {
    const res = await send(this.t, { method: 'GET', path: '/features' }, opts);
    if (res.status === 404) return null;
    return validate(FeaturesSchema, expectJson(res, 'GET /features'), 'GET /features');
  }

  /**
   * The server's own log (`/internal/logs/raw`, protocol §15: not a stable API) with the answer's
   * `Date` header; a non-2xx is an answer too (`ok: false`): 404 is an older ComfyUI or a proxy that
   * does not forward `/internal/`.
   */
  async getRawLogs(opts?: CallOptions): Promise<RawLogsAnswer> {
    const route = 'GET /internal/logs/raw';
    const res = await send(this.t, { method: 'GET', path: '/internal/logs/raw' }, opts);
    if (res.status < 200 || res.status > 299) return { ok: false, status: res.status };
    const body = validate(RawLogsSchema, expectJson(res, route), route);
    const entries = body.entries.filter(
      (e): e is { t: string; m: string } =>
        typeof e === 'object' &&
        e !== null &&
        typeof (e as { t?: unknown }).t === 'string' &&
        typeof (e as { m?: unknown }).m === 'string',
    );
    return { ok: true, entries, date: res.date };
  }

  /**
   * Streams `/view` into `dest` and returns the bytes written: a file path (created or truncated;
   * a failure may leave part of it there) or a sink — Shotfarm's output files hash and bound what
   * they take (files/output-file.ts). `timeoutMs` bounds the wait for headers and each silence in
   * the body; `deadlineMs`, when given, the whole transfer (a body dripping a byte a second ends
   * there). An error the sink throws (a full disk, a file too large) is thrown as it is; the
   * server's part is a ComfyRequestError.
   */
  async downloadView(
    file: ViewFile,
    dest: string | DownloadSink,
    opts: CallOptions & { fsync?: boolean; deadlineMs?: number } = {},
  ): Promise<number> {
    const route = 'GET /view';
    const timeoutMs = opts.timeoutMs ?? this.t.timeoutMs;
    const query = { filename: file.filename, subfolder: file.subfolder ?? '', type: file.type ?? 'output' };
    const deadline = opts.deadlineMs === undefined ? null : new Deadline(opts.deadlineMs, opts.signal);
    const signal = deadline?.signal ?? opts.signal;
    const fail = (err: unknown): ComfyRequestError =>
      deadline ? deadline.fail(err, route) : this.streamFailure(err, route, timeoutMs, opts.signal);
    let res: Dispatcher.ResponseData;
    try {
      try {
        res = await request(buildUrl(this.t.baseUrl, '/view', query), {
          method: 'GET',
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          ...(signal ? { signal } : {}),
          ...(this.t.dispatcher ? { dispatcher: this.t.dispatcher } : {}),
        });
      } catch (err) {
        throw fail(err);
      }
      if (res.statusCode !== 200) {
        const text = await readCapped(res, 64 * 1024, route).catch(() => '');
        throw new ComfyRequestError(
          { kind: 'http', status: res.statusCode, body: tryParseJson(text), bodyText: text },
          route,
        );
      }
      let sink: DownloadSink;
      try {
        sink = typeof dest === 'string' ? await fileSink(dest, opts.fsync === true) : dest;
      } catch (err) {
        discardBody(res.body); // a file that cannot be opened: the answer is dropped, and so is its connection
        throw err;
      }
      const length = Number(res.headers['content-length']);
      return await pour(res.body, sink, Number.isFinite(length) ? length : null, fail);
    } finally {
      deadline?.dispose();
    }
  }

  /**
   * Multipart upload of a local file. The file is read lazily (`openAsBlob`), not buffered.
   * Use the returned `name`: without `overwrite`, a different file of the same name is renamed.
   */
  async uploadImage(filePath: string, o: UploadOptions = {}, opts?: CallOptions): Promise<UploadedImage> {
    const form = new FormData();
    form.append('image', await openAsBlob(filePath), basename(filePath));
    if (o.subfolder !== undefined) form.append('subfolder', o.subfolder);
    if (o.type !== undefined) form.append('type', o.type);
    if (o.overwrite !== undefined) form.append('overwrite', o.overwrite ? 'true' : 'false');
    const res = await send(this.t, { method: 'POST', path: '/upload/image', form }, opts);
    const v = validate(UploadImageSchema, expectJson(res, 'POST /upload/image'), 'POST /upload/image');
    return { name: v.name, subfolder: v.subfolder, type: v.type };
  }

  private streamFailure(err: unknown, route: string, timeoutMs: number, signal?: AbortSignal): ComfyRequestError {
    if (err instanceof ComfyRequestError) return err;
    const failure = failureFromError(err, { timeoutMs, callerAborted: signal?.aborted === true });
    return new ComfyRequestError(failure, route, { cause: err });
  }
}
