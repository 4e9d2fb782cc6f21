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

export class CommitBatch {
  private items: Item[] = [];
  private scheduled = false;
  /** Batches committed and writes in them, for benchmarks and tests. */
  readonly stats = { commits: 0, writes: 0 };

  constructor(
    private readonly db: Db,
    /** When the batch is written: after the current tick's other callbacks (default setImmediate). */
    private readonly defer: (fn: () => void) => void = (fn) => void setImmediate(fn),
    /** A batch was stored: the storage works (the farm's storage hold ends its fault streak). */
    private readonly committed: () => void = () => undefined,
  ) {}

  /**
   * Runs `fn` (synchronous SQL, as inside inTransaction) in the next batch, in its own savepoint.
   * Resolves with its result once the batch is committed; rejects with its own error (only its
   * savepoint rolled back) or with the commit's error (then nothing of the batch was stored).
   */
  add<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.items.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      this.defer(() => this.flush());
    });
  }

  /** Writes what is waiting now, in one transaction. */
  flush(): void {
    this.scheduled = false;
    const items = this.items;
    if (items.length === 0) return;
    this.items = [];
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
