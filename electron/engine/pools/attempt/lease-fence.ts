/**
 * Fencing by workstation lease (issue 27): on a PostgreSQL farm shared by several engines, each
 * workstation is driven by the engine that holds its lease (lock/lease-manager.ts), and every write
 * an attempt makes — its claim, progress checkpoints, its end with output and ledger rows, a
 * requeue — carries the lease epoch the attempt was started under. The write's own transaction
 * checks that epoch first (store/lease-store.ts leaseHeld): once another engine took the
 * workstation (the epoch moved on) the whole write is refused and rolled back, so an engine that
 * was frozen past its lease and wakes up records nothing stale. On SQLite there are no leases: the
 * batch is the farm's own, unfenced.
 */
import type { CommitBatch } from '../../store/commit-batch.js';

/** The commit batch as writers use it: `add` a write, resolved once committed. */
export type Batch = Pick<CommitBatch, 'add'>;

/** The leases this engine holds, as the farm sees them (null on SQLite: one engine, every workstation its own). */
export interface FarmLeases {
  /** This engine, as the lease rows name it (its id). */
  readonly identity: { readonly id: string };
  /** The epoch this engine holds the workstation's lease under; null when it is not this engine's now. */
  epochOf(instanceId: string): number | null;
  /** Inside a write's transaction: throws LeaseLost unless this engine still holds the lease under `epoch`. */
  fence(instanceId: string, epoch: number): void;
}

/** A write refused because the workstation's lease moved on to another engine (nothing of it was stored). */
export class LeaseLost extends Error {
  constructor(
    readonly instanceId: string,
    readonly epoch: number,
  ) {
    super(`the lease on workstation ${instanceId} moved on from epoch ${epoch} (another engine drives it now)`);
    this.name = 'LeaseLost';
  }
}

export function isLeaseLost(err: unknown): err is LeaseLost {
  return err instanceof LeaseLost;
}

/** The workstation and the lease epoch an attempt was started under. */
export interface LeaseStamp {
  instanceId: string;
  epoch: number;
}

/** `batch`, with every write fenced on the lease `stamp` (unchanged when there are no leases). */
export function fencedBatch(batch: Batch, leases: FarmLeases | null, stamp: LeaseStamp | null): Batch {
  if (!leases || !stamp) return batch;
  return {
    add: <T>(fn: () => T) =>
      batch.add(() => {
        leases.fence(stamp.instanceId, stamp.epoch);
        return fn();
      }),
  };
}
