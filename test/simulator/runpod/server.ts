// A simulated RunPod serverless endpoint running worker-comfyui (issue 18), on loopback: the
// queue-based operations /run, /status/{id}, /stream/{id}, /cancel/{id}, /retry/{id} and /health
// under /v2/{endpoint id}/, with the documented shapes (docs/runpod-protocol.md), an API key check
// (401), rate limiting (429 + Retry-After), a cold start per job (delayTime), the endpoint's
// execution timeout (TIMED_OUT), and faults: a script of per-/run words and HTTP failures on demand.
// Each job runs through a real simulated ComfyUI instance, so outputs are real PNGs.

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSimInstance, type SimInstance } from '../instance.js';
import type { SimInstanceOptions } from '../options.js';
import { runWorkerJob } from './worker.js';

/** What one /run does: ok; `lost` (the worker dies mid-job: FAILED); `timeout` (runs past the execution timeout: TIMED_OUT); `never` (never starts); `invalid` (ComfyUI refuses the workflow). */
export const RUNPOD_WORDS = ['ok', 'lost', 'timeout', 'never', 'invalid'] as const;
export type RunpodWord = (typeof RUNPOD_WORDS)[number];

export interface RunpodSimOptions {
  port?: number;
  endpointId?: string;
  apiKey?: string;
  /** Other keys it accepts too (several engines, each with a key of its own: whose requests these are). */
  moreKeys?: string[];
  /** Each job waits this long IN_QUEUE before a worker starts it (a cold start), ms. */
  coldStartMs?: number;
  /** Jobs run at once (workers). */
  workers?: number;
  executionTimeoutMs?: number;
  /** Requests per second before 429 (0: unlimited). */
  ratePerSecond?: number;
  script?: string[];
  comfy?: SimInstanceOptions;
}

interface SimJob {
  id: string;
  status: 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TIMED_OUT';
  input: unknown;
  word: RunpodWord;
  submittedAt: number;
  startedAt: number | null;
  endedAt: number | null;
  output?: unknown;
  error?: string;
  abort: AbortController;
}

export interface RunpodSim {
  /** The API base to register (`--api-base`): `http://127.0.0.1:PORT/v2`. */
  readonly apiBase: string;
  readonly endpointId: string;
  /** POST /run calls that created a job. */
  runCalls(): number;
  /** GET /health requests made with this key (accepted ones, answered or failed on demand). */
  healthCalls(key: string): number;
  /** The ids /cancel was called for. */
  cancelled(): string[];
  /** The jobs /run created: their status, and when their /run arrived (Date.now()). */
  jobs(): { id: string; status: string; submittedAt: number }[];
  setScript(words: string[]): void;
  /** The next `n` requests to `route` ('run', 'status', 'cancel', 'health' or '*') answer `status`, with Retry-After when given. */
  failNext(route: string, status: number, n: number, retryAfterS?: number): void;
  /** Holds /run answers (the job is created, the answer waits) until released: a crash between /run and storing the id. */
  holdRunAnswers(on: boolean): void;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startRunpodSim(o: RunpodSimOptions = {}): Promise<RunpodSim> {
  const endpointId = o.endpointId ?? 'sim-endpoint';
  const apiKey = o.apiKey ?? 'rp_sim_key';
  const keys = new Set([apiKey, ...(o.moreKeys ?? [])]);
  const healthBy = new Map<string, number>();
  const comfy: SimInstance = await startSimInstance({
    name: `${endpointId}-worker`,
    duration: { fixedMs: 30 },
    ...o.comfy,
  });
  const jobs = new Map<string, SimJob>();
  const cancelledIds: string[] = [];
  let script = [...(o.script ?? [])];
  let runs = 0;
  const failures: { route: string; status: number; n: number; retryAfterS?: number }[] = [];
  let holdRuns = false;
  const held: (() => void)[] = [];
  const recent: number[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const later = (fn: () => void, ms: number): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  const running = (): number => [...jobs.values()].filter((j) => j.status === 'IN_PROGRESS').length;
  const end = (j: SimJob, status: SimJob['status'], fields: { output?: unknown; error?: string } = {}): void => {
    if (j.status !== 'IN_QUEUE' && j.status !== 'IN_PROGRESS') return;
    j.status = status;
    j.endedAt = Date.now();
    Object.assign(j, fields);
    j.abort.abort();
    pump();
  };
  const start = (j: SimJob): void => {
    j.status = 'IN_PROGRESS';
    j.startedAt = Date.now();
    const timeoutMs = o.executionTimeoutMs ?? 600_000;
    later(() => end(j, 'TIMED_OUT'), timeoutMs);
    if (j.word === 'timeout') return; // runs until the execution timeout ends it
    if (j.word === 'lost')
      return later(() => end(j, 'FAILED', { error: 'worker exited unexpectedly (the worker was lost mid-job)' }), 30);
    if (j.word === 'invalid') comfy.setScript(['invalid']);
    void runWorkerJob(comfy, j.input, j.abort.signal).then(
      (a) => (a.ok ? end(j, 'COMPLETED', { output: a.output }) : end(j, 'FAILED', { error: a.error })),
      (err: unknown) => {
        if (!j.abort.signal.aborted) end(j, 'FAILED', { error: `handler crashed: ${(err as Error).message}` });
      },
    );
  };
  /** Starts queued jobs on free workers, each after its cold start. */
  const pump = (): void => {
    for (const j of jobs.values()) {
      if (running() >= (o.workers ?? 1)) return;
      if (j.status !== 'IN_QUEUE' || j.word === 'never' || j.startedAt !== null) continue;
      j.startedAt = -1; // warming up
      later(() => {
        if (j.status !== 'IN_QUEUE') return;
        j.startedAt = null;
        start(j);
      }, o.coldStartMs ?? 0);
    }
  };
  const view = (j: SimJob): Record<string, unknown> => {
    const now = Date.now();
    const startedAt = j.startedAt !== null && j.startedAt > 0 ? j.startedAt : null;
    return {
      id: j.id,
      status: j.status,
      delayTime: (startedAt ?? j.endedAt ?? now) - j.submittedAt,
      ...(startedAt ? { executionTime: (j.endedAt ?? now) - startedAt, workerId: 'sim-worker-1' } : {}),
      ...(j.status === 'COMPLETED' ? { output: j.output } : {}),
      ...(j.status === 'FAILED' ? { error: j.error } : {}),
    };
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const m = /^\/v2\/([^/]+)\/(run|runsync|status|stream|cancel|retry|health)(?:\/([^/]+))?$/.exec(url.pathname);
      if (!m || m[1] !== endpointId) return send(res, 404, { error: 'not found' });
      const auth = req.headers.authorization ?? '';
      const key = auth.startsWith('Bearer ') ? auth.slice('Bearer '.length) : auth;
      if (!keys.has(key)) return send(res, 401, { error: 'Unauthorized' });
      const route = m[2] as string;
      if (route === 'health') healthBy.set(key, (healthBy.get(key) ?? 0) + 1);
      const f = failures.find((x) => x.n > 0 && (x.route === route || x.route === '*'));
      if (f) {
        f.n--;
        return send(
          res,
          f.status,
          { error: `simulated ${f.status}` },
          f.retryAfterS !== undefined ? { 'retry-after': String(f.retryAfterS) } : {},
        );
      }
      if (o.ratePerSecond) {
        const now = Date.now();
        while (recent.length && (recent[0] as number) < now - 1000) recent.shift();
        if (recent.length >= o.ratePerSecond) return send(res, 429, { error: 'rate limited' }, { 'retry-after': '1' });
        recent.push(now);
      }
      const id = m[3] ? decodeURIComponent(m[3]) : null;
      if (route === 'health') {
        const count = (s: SimJob['status']) => [...jobs.values()].filter((j) => j.status === s).length;
        return send(res, 200, {
          jobs: {
            completed: count('COMPLETED'),
            failed: count('FAILED'),
            inProgress: count('IN_PROGRESS'),
            inQueue: count('IN_QUEUE'),
            retried: 0,
          },
          workers: { idle: Math.max(0, (o.workers ?? 1) - running()), running: running() },
        });
      }
      if (route === 'run' || route === 'runsync') {
        if (req.method !== 'POST') return send(res, 405, { error: 'POST only' });
        const text = await readBody(req);
        if (Buffer.byteLength(text) > 10 * 1024 * 1024) return send(res, 413, { error: 'payload too large (10 MB)' });
        let body: { input?: unknown };
        try {
          body = JSON.parse(text) as { input?: unknown };
        } catch {
          return send(res, 400, { error: 'invalid JSON' });
        }
        if (body.input === undefined) return send(res, 400, { error: "the request needs an 'input' object" });
        const word = (script.shift() ?? 'ok') as RunpodWord;
        const job: SimJob = {
          id: `${randomUUID()}-u1`,
          status: 'IN_QUEUE',
          input: body.input,
          word,
          submittedAt: Date.now(),
          startedAt: null,
          endedAt: null,
          abort: new AbortController(),
        };
        jobs.set(job.id, job);
        runs++;
        pump();
        const answer = (): void => send(res, 200, { id: job.id, status: 'IN_QUEUE' });
        if (holdRuns) held.push(answer);
        else answer();
        return;
      }
      const job = id ? jobs.get(id) : undefined;
      if (!job) return send(res, 404, { error: `job ${id ?? ''} not found` });
      if (route === 'status' || route === 'stream')
        return send(res, 200, route === 'stream' ? { ...view(job), stream: [] } : view(job));
      if (route === 'cancel') {
        cancelledIds.push(job.id);
        end(job, 'CANCELLED');
        return send(res, 200, { id: job.id, status: job.status });
      }
      if (route === 'retry') {
        if (job.status !== 'FAILED' && job.status !== 'TIMED_OUT')
          return send(res, 400, { error: 'only FAILED or TIMED_OUT jobs can be retried' });
        Object.assign(job, {
          status: 'IN_QUEUE',
          startedAt: null,
          endedAt: null,
          output: undefined,
          error: undefined,
          abort: new AbortController(),
          word: 'ok',
        });
        pump();
        return send(res, 200, { id: job.id, status: 'IN_QUEUE' });
      }
      send(res, 404, { error: 'not found' });
    })().catch((err: unknown) => send(res, 500, { error: (err as Error).message }));
  });
  await new Promise<void>((resolve) => server.listen(o.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    apiBase: `http://127.0.0.1:${port}/v2`,
    endpointId,
    runCalls: () => runs,
    healthCalls: (key) => healthBy.get(key) ?? 0,
    cancelled: () => [...cancelledIds],
    jobs: () => [...jobs.values()].map((j) => ({ id: j.id, status: j.status, submittedAt: j.submittedAt })),
    setScript: (words) => void (script = [...words]),
    failNext: (route, status, n, retryAfterS) =>
      void failures.push({ route, status, n, ...(retryAfterS !== undefined ? { retryAfterS } : {}) }),
    holdRunAnswers: (on) => {
      holdRuns = on;
      if (!on) for (const a of held.splice(0)) a();
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const j of jobs.values()) j.abort.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await comfy.close();
    },
  };
}
