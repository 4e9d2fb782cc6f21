/**
 * Batched durability (SPEC §4): the writes the farm has ready in the same tick — claims,
 * completions with their ledger rows, retries, requeues, progress checkpoints — commit together,
 * one BEGIN IMMEDIATE … COMMIT and so one fsync (synchronous=FULL stays on) for all of them,
 * instead of one each. Each write runs in a savepoint of its own inside the batch: one that throws
 * (a stale report the fence refuses, a vanished row) rolls back only itself and rejects only its
 * own promise; the others commit. A promise resolves only once the batch's COMMIT returned, so a
 * caller that waits for it still writes before it sends and never announces what is not stored.
 */
import { databaseFault, type Db } from './database.js';

interface Item {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Settled = { ok: true; value: unknown } | { ok: false; err: unknown };

/**
 * Writes per transaction. A burst — a farm's start (200 workstations' health rows, their node
 * lists, the first claims: ~1,000 writes in a second), a wave of prompts ending together —
 * committed as one transaction held the event loop for the whole of it and then resolved every
 * write's promise (runners starting, announcements) in the same turn: the longest turns of a
 * 200-GPU run. Now a deferred commit takes chunks of at most this many, one after the other while
 * the turn's commits have taken less than COMMIT_TURN_MS, and leaves the rest, in order, to the
 * next turn (one more fsync per chunk), so other work runs between.
 */
export const MAX_WRITES_PER_COMMIT = 32;
/** A deferred commit starts no further chunk in a turn once its chunks have taken this long (ms)… */
export const COMMIT_TURN_MS = 8;
/**
 * …unless it has not yet stored this share of what was waiting at the turn's start: on a loaded
 * machine one chunk can take the whole budget, and a backlog of claims behind a burst of
 * bookkeeping writes (~1,000 at a 200-GPU start) must still drain in a few turns, not thirty.
 */
export const COMMIT_TURN_SHARE = 1 / 4;

export class CommitBatch {
  private items: Item[] = [];
  private scheduled = false;
  /** Batches committed and writes in them, for benchmarks and tests. */
  readonly stats = { commits: 0, writes: 0 };
  /** Writes waiting in the largest batch a deferred commit found (before its split), for benchmarks. */
  largestWaiting = 0;

  constructor(
    private readonly db: Db,
    /** When the batch is written: after the current tick's other callbacks (default setImmediate). */
    private readonly defer: (fn: () => void) => void = (fn) => void setImmediate(fn),
    /** A batch was stored: the storage works (the farm's storage hold ends its fault streak). */
    private readonly committed: () => void = () => undefined,
    /** A monotonic clock (ms) for COMMIT_TURN_MS: how long a turn's commits have taken, not the engine's time. */
    private readonly elapsed: () => number = () => performance.now(),
  ) {}

  /**
   * Runs `fn` (synchronous SQL, as inside inTransaction) in the next batch, in its own savepoint.
   * Resolves with its result once the batch is committed; rejects with its own error (only its
   * savepoint rolled back) or with the commit's error (then nothing of the batch was stored).
   */
  add<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.items.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.defer(() => this.flushSome());
  }

  /** The deferred commit: chunks of what waits while the turn's budget lasts, the rest in the next turn. */
  private flushSome(): void {
    this.scheduled = false;
    this.largestWaiting = Math.max(this.largestWaiting, this.items.length);
    const begun = this.elapsed();
    const quota = Math.ceil(this.items.length * COMMIT_TURN_SHARE);
    let stored = 0;
    do {
      const chunk = this.items.splice(0, MAX_WRITES_PER_COMMIT);
      this.commit(chunk);
      stored += chunk.length;
    } while (this.items.length > 0 && (stored < quota || this.elapsed() - begun < COMMIT_TURN_MS));
    if (this.items.length > 0) this.schedule();
  }

  /** Writes everything waiting now (closing), in transactions of at most MAX_WRITES_PER_COMMIT. */
  flush(): void {
    while (this.items.length > 0) this.commit(this.items.splice(0, MAX_WRITES_PER_COMMIT));
  }

  /** These writes in one transaction, each in its savepoint; their promises settle once it is committed (or failed). */
  private commit(items: Item[]): void {
    if (items.length === 0) return;
    let settled: Settled[];
    try {
      settled = this.db.transaction(() =>
        items.map((it): Settled => {
          try {
            return { ok: true, value: this.db.transaction(it.fn) };
          } catch (err) {
            // A full disk, a locked or failing database: SQLite may have rolled the whole
            // transaction back already, so the batch ends here, every write with this error.
            if (databaseFault(err)) throw err;
            return { ok: false, err };
          }
        }),
      );
    } catch (err) {
      // The commit itself failed, or the storage did under one write (disk full, the database
      // locked or closed): nothing of this batch is stored.
      for (const it of items) it.reject(err);
      return;
    }
    this.stats.commits++;
    this.stats.writes += items.length;
    this.committed();
    items.forEach((it, i) => {
      const s = settled[i] as Settled;
      if (s.ok) it.resolve(s.value);
      else it.reject(s.err);
    });
  }
}
