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
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import {
  type BridgeAnswer,
  type BridgeRequest,
  type BridgeWorkerData,
  isBridgeAnswer,
  isNoticeMessage,
  type NoticeMessage,
} from './bridge-protocol.js';
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
  /** The terminations of the workers dropped so far (a reconnect drops one; close the last). */
  private readonly exiting: Promise<void>[] = [];
  /** The worker's notices port (NoticeMessage), listened to on the event loop, never waited on. */
  private notices: MessagePort | null = null;
  /** Where heard notices go, and the channel a replacement worker listens on from its start. */
  private listener: { channel: string; onNotice: (m: NoticeMessage) => void } | null = null;

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
    const answered = waitForFlag(this.flag, waitMs);
    const msg = receiveMessageOnPort(port);
    if (!answered && msg === undefined) {
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

  /**
   * Listens on `channel` from now on: each NOTIFY on it (and each "notices may have been missed")
   * is given to `onNotice` on the event loop, whatever the engine thread is doing. A worker that is
   * replaced listens again by itself (and says it may have missed some).
   */
  listen(channel: string, onNotice: (m: NoticeMessage) => void): boolean {
    this.listener = { channel, onNotice };
    return this.call({ op: 'listen', channel }).rows[0]?.listening === true;
  }

  /** A NOTIFY, sent by the worker on its notice connection; returns at once (nothing waits for it). */
  notify(channel: string, payload: string): void {
    if (this.closed) return;
    this.ensureWorker().postMessage({ op: 'notify', channel, payload } satisfies BridgeRequest);
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
    const notices = new MessageChannel();
    this.flag = new Int32Array(new SharedArrayBuffer(4));
    const data: BridgeWorkerData & { port: MessagePort; notices: MessagePort } = {
      url: this.url,
      flag: this.flag.buffer as SharedArrayBuffer,
      generation: ++generations,
      connectTimeoutMs: this.opts.connectTimeoutMs ?? 5000,
      writeLockKey: this.opts.writeLockKey,
      listen: this.listener?.channel ?? null,
      port: port2,
      notices: notices.port2,
    };
    const worker = startWorker(data, [port2, notices.port2]);
    // The worker holds no reason to keep the process alive on its own: the store's close ends it.
    worker.unref();
    port1.unref();
    notices.port1.on('message', (m: unknown) => {
      // A boundary: a message that is not a notice is dropped (the periodic re-read stands behind it).
      if (isNoticeMessage(m)) this.listener?.onNotice(m);
    });
    notices.port1.unref();
    this.worker = worker;
    this.port = port1;
    this.notices = notices.port1;
    return port1;
  }

  /** Resolves once every worker this bridge started and dropped has exited. */
  exited(): Promise<void> {
    return Promise.all(this.exiting).then(() => undefined);
  }

  private dropWorker(): void {
    const exit = this.worker?.terminate();
    if (exit) this.exiting.push(exit.then(noop, noop));
    this.port?.close();
    this.notices?.close();
    this.worker = null;
    this.port = null;
    this.notices = null;
  }
}

function noop(): void {}

/**
 * Sleeps until the worker has set the flag (true), or `ms` passed (false). A wake-up alone is not an
 * answer: the worker sets the flag and then notifies, so when the engine saw the flag already set
 * and went on, that notify can land in the next call's wait, after the flag was reset and before
 * that call's answer — a stale wake-up with no message (the bench found it about once in 100,000
 * calls). The flag is what counts, so the wait resumes until it is set.
 */
export function waitForFlag(flag: Int32Array, ms: number): boolean {
  const until = performance.now() + ms;
  while (Atomics.load(flag, 0) === 0) {
    const left = until - performance.now();
    if (left <= 0) return false;
    Atomics.wait(flag, 0, 0, left);
  }
  return true;
}

/**
 * Built, the worker is the .js beside this file. Run from sources under tsx (tests, benches), it is
 * .ts, and Node 20 does not apply the parent's `--import tsx` to a worker's entry: the worker first
 * registers tsx, then imports the .ts.
 */
function startWorker(data: BridgeWorkerData & { port: MessagePort }, ports: MessagePort[]): Worker {
  const options = { workerData: data, transferList: ports };
  const file = bridgeWorkerFile(import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return new Worker(file, options);
  const entry = file.href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { ...options, eval: true });
}

/** The worker thread's file beside `moduleUrl` (.js built, .ts from sources), or throws BRIDGE_MISSING. */
export function bridgeWorkerFile(moduleUrl: string): URL {
  const file = new URL(moduleUrl.endsWith('.ts') ? './bridge-worker.ts' : './bridge-worker.js', moduleUrl);
  // A worker whose file is missing never answers, and the engine's thread is asleep waiting for it:
  // without this look, a broken install would wait out the call's bound and then read as "the
  // database is unreachable" — a storage hold that no database fix ends.
  if (!existsSync(fileURLToPath(file))) {
    throw new PostgresStoreError(
      `the PostgreSQL store's worker file ${fileURLToPath(file)} is missing: this installation is incomplete (reinstall or rebuild Shotfarm; a bundle must ship bridge-worker.js beside its store)`,
      BRIDGE_MISSING,
    );
  }
  return file;
}

/** Not a SQLSTATE and not a lost connection: an installation fault, never mapped to a storage hold. */
export const BRIDGE_MISSING = 'bridge-missing';
