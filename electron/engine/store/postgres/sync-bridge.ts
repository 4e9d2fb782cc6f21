/**
 * A synchronous call into PostgreSQL: the store is synchronous (better-sqlite3's model, used inside
 * synchronous transactions all over the engine), so the PostgreSQL adapter keeps that shape. A
 * worker thread owns the connection (bridge-worker.ts); each call posts a request and sleeps on a
 * shared flag (Atomics.wait) until the worker has answered, then takes the answer off the port
 * synchronously. The engine's thread blocks for the round trip, as it blocks for SQLite's disk
 * today (docs/postgresql.md has the measured cost and why this over an asynchronous store).
 *
 * A worker that does not answer within the call's bound is replaced; the call fails as a lost
 * connection (a storage fault: the farm holds and tries again).
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { type BridgeAnswer, type BridgeRequest, type BridgeWorkerData, isBridgeAnswer } from './bridge-protocol.js';
import { CONNECTION, PostgresStoreError } from './postgres-error.js';

export interface SyncBridgeOptions {
  /** Longest a statement may take before the connection is given up (default 30 s; a connect's time comes on top). */
  callTimeoutMs?: number;
  /** Longest a connect may take (default 5 s). */
  connectTimeoutMs?: number;
  writeLockKey: number;
}

type Ok = Extract<BridgeAnswer, { ok: true }>;

let generations = 0;
/** A worker thread's start (loading the driver; under tsx, compiling it): not the database's time. */
const WORKER_START_MS = 10_000;

export class SyncBridge {
  private worker: Worker | null = null;
  private port: MessagePort | null = null;
  /** Per worker: a replaced worker's late answer must not wake the next call. */
  private flag = new Int32Array(new SharedArrayBuffer(4));
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly opts: SyncBridgeOptions,
  ) {}

  /** Sends one request and waits for its answer; a failure throws PostgresStoreError. */
  call(req: BridgeRequest): Ok {
    if (this.closed) throw new PostgresStoreError('the PostgreSQL store is closed', CONNECTION);
    const fresh = this.worker === null;
    const port = this.ensureWorker();
    Atomics.store(this.flag, 0, 0);
    port.postMessage(req);
    const callMs = this.opts.callTimeoutMs ?? 30_000;
    // The bound is the statement's; a connect (bounded by its own timeout, which answers with an
    // error) and a new worker's start come on top of it.
    const waitMs = callMs + (this.opts.connectTimeoutMs ?? 5000) + (fresh ? WORKER_START_MS : 0);
    const waited = Atomics.wait(this.flag, 0, 0, waitMs);
    const msg = receiveMessageOnPort(port);
    if (waited === 'timed-out' && msg === undefined) {
      this.dropWorker();
      throw new PostgresStoreError(`the database did not answer within ${Math.round(waitMs / 1000)} s`, CONNECTION);
    }
    const answer: unknown = msg?.message;
    if (!isBridgeAnswer(answer)) {
      this.dropWorker();
      throw new PostgresStoreError('the database bridge gave an answer it should not have', CONNECTION);
    }
    if (!answer.ok) throw new PostgresStoreError(answer.message, answer.code, answer.detail);
    return answer;
  }

  close(): void {
    if (this.closed) return;
    if (this.worker) {
      try {
        this.call({ op: 'close' });
      } catch {
        // Closing a connection that is already gone.
      }
    }
    this.closed = true;
    this.dropWorker();
  }

  private ensureWorker(): MessagePort {
    if (this.worker && this.port) return this.port;
    const { port1, port2 } = new MessageChannel();
    this.flag = new Int32Array(new SharedArrayBuffer(4));
    const data: BridgeWorkerData & { port: MessagePort } = {
      url: this.url,
      flag: this.flag.buffer as SharedArrayBuffer,
      generation: ++generations,
      connectTimeoutMs: this.opts.connectTimeoutMs ?? 5000,
      writeLockKey: this.opts.writeLockKey,
      port: port2,
    };
    const worker = startWorker(data, port2);
    // The worker holds no reason to keep the process alive on its own: the store's close ends it.
    worker.unref();
    port1.unref();
    this.worker = worker;
    this.port = port1;
    return port1;
  }

  private dropWorker(): void {
    this.worker?.terminate().catch(() => undefined);
    this.port?.close();
    this.worker = null;
    this.port = null;
  }
}

/**
 * Built, the worker is the .js beside this file. Run from sources under tsx (tests, benches), it is
 * .ts, and Node 20 does not apply the parent's `--import tsx` to a worker's entry: the worker first
 * registers tsx, then imports the .ts.
 */
function startWorker(data: BridgeWorkerData & { port: MessagePort }, port: MessagePort): Worker {
  const options = { workerData: data, transferList: [port] };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./bridge-worker.js', import.meta.url), options);
  const entry = new URL('./bridge-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { ...options, eval: true });
}
