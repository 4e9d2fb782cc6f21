/**
 * The farm waits for its storage. When the database cannot take a write (another process holds
 * its lock past the busy timeout, the disk is full, the disk fails) or the output disk cannot take
 * a file (full, read-only), nothing is gained by going on: every claim and every completion would
 * fail the same way, and failing attempts for it would burn the jobs' retries in seconds. So the
 * farm holds — no new dispatch; the attempts that hit the fault keep their prompts' results on
 * the servers and wait — says why (farm.status, the UI's banner, the log), and tries again by
 * itself after a backoff (2 s doubling to 30 s by default). The first write that fails again holds
 * it again; a success ends the streak.
 *
 * It also guards the farm's own timers and background steps: whatever they throw is a hold (a
 * storage fault) or a log line (anything else), never an exception that ends the process.
 */
import type { StorageHoldKind, StorageHoldView } from '../../../../shared/domain.js';
import type { Clock, Timers } from '../../clock.js';
import { OutputStoreError } from '../../files/output-file.js';
import { databaseFault } from '../../store/database.js';

/** The longest wait between tries while the database server cannot be reached. */
export const UNREACHABLE_RETRY_CAP_MS = 3_000;

export interface StorageFault {
  kind: StorageHoldKind;
  words: string;
}

/** The storage fault `err` is, if it is one: SQLite's BUSY/FULL/IOERR/READONLY, or an output disk that must be freed. */
export function storageFaultOf(err: unknown): StorageFault | null {
  if (err instanceof OutputStoreError && err.waits) {
    return {
      kind: err.fsCode === 'ENOSPC' || err.fsCode === 'EDQUOT' ? 'output_disk_full' : 'output_not_writable',
      words: err.message,
    };
  }
  return databaseFault(err);
}

export interface StorageHoldDeps {
  clock: Clock;
  timers: Timers;
  log: (message: string) => void;
  /** The first retry after this long, doubling per fault in a row up to `retryCapMs` (read at each fault). */
  retryMs: () => { baseMs: number; capMs: number };
  /** The hold began, changed or ended: publish it. */
  changed: (view: StorageHoldView | null) => void;
}

export class StorageHold {
  private current: StorageHoldView | null = null;
  /** Faults in a row (a success resets it): the backoff's exponent. */
  private streak = 0;
  /** When the streak began (a retry that fails again keeps it: the hold is the same one). */
  private since = 0;
  private timer: unknown = null;
  private waiters = new Set<() => void>();
  private closed = false;

  constructor(private readonly d: StorageHoldDeps) {}

  get view(): StorageHoldView | null {
    return this.current;
  }

  get held(): boolean {
    return this.current !== null;
  }

  /** A write failed for a storage reason: hold the farm and try again after the backoff. */
  hold(fault: StorageFault, what: string): void {
    if (this.closed) return;
    const now = this.d.clock.now();
    const { baseMs, capMs } = this.d.retryMs();
    // An unreachable database server is asked again every few seconds however long it was gone:
    // its return must restart the farm within seconds, and a refused connection costs nothing.
    const cap = fault.kind === 'database_unreachable' ? Math.min(capMs, UNREACHABLE_RETRY_CAP_MS) : capMs;
    const delay = Math.min(cap, baseMs * 2 ** Math.min(this.streak, 20));
    this.streak++;
    const reason = `${fault.words} (${what})`;
    const said = this.current?.reason;
    if (this.streak === 1) this.since = now;
    this.current = { kind: fault.kind, reason, since: this.since, retryAt: now + delay };
    this.d.timers.clearTimeout(this.timer);
    this.timer = this.d.timers.setTimeout(() => this.retry(), delay);
    if (said !== reason) this.d.log(`the farm waits: ${reason}; it tries again in ${Math.round(delay / 100) / 10} s`);
    this.d.changed(this.current);
  }

  /** What needed the storage worked (a commit batch was stored, outputs were written): the streak is over. */
  ok(): void {
    this.streak = 0;
  }

  /**
   * Runs one background step of the farm (a timer's, a probe's): a storage fault holds the farm,
   * anything else is logged. Never throws.
   */
  guard(what: string, step: () => void): void {
    try {
      step();
    } catch (err) {
      this.failed(what, err);
    }
  }

  /** The async form of guard: the returned promise never rejects. */
  async guardAsync(what: string, step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (err) {
      this.failed(what, err);
    }
  }

  /** An error a background step ended with: a hold when it is a storage fault, else a log line. Returns whether it held. */
  failed(what: string, err: unknown): boolean {
    const fault = storageFaultOf(err);
    if (fault) {
      this.hold(fault, what);
      return true;
    }
    this.d.log(`${what} failed: ${(err as Error)?.stack ?? String(err)}`);
    return false;
  }

  /** Resolves at once when not held; else when the farm tries again (or the signal fires, or the farm closes). */
  whenRetry(signal?: AbortSignal): Promise<void> {
    if (!this.current || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** The backoff is over: lift the hold and let everything that waits try again. */
  private retry(): void {
    this.timer = null;
    if (!this.current) return;
    this.current = null;
    this.d.log('the farm tries its storage again');
    this.d.changed(null);
    for (const w of [...this.waiters]) w();
  }

  close(): void {
    this.closed = true;
    this.d.timers.clearTimeout(this.timer);
    this.timer = null;
    for (const w of [...this.waiters]) w();
  }
}
