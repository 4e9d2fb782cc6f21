/**
 * The seam between the scheduler and a kind of workstation (BullMQ's queue-backend interface,
 * Flamenco's interfaces.go): the scheduler holds a list of pools (farm-pools.ts) and calls each
 * through this interface — start, close, stop, cancel, reload an instance, recover an attempt left
 * open, show its cards, and take queued jobs in its dispatch pass. A pool's runners claim through
 * attempt/claim.ts and report their ends to attempt/conclude.ts, so the engine's rules (write
 * before send, the storage hold, fencing, the illegal-transition throw in tests) hold for every
 * kind; test/integration/pool-conformance.test.ts runs the same lifecycle on each. A new kind (another
 * cloud, a ComfyUI behind a proxy) is one folder here and one line there.
 */
import type { InstanceKind, InstanceView } from '../../../shared/domain.js';
import type { AttemptRow } from '../store/attempt-store.js';
import type { JobRow } from '../store/job-rows.js';

/** What one dispatch pass gives a pool (after the pools before it took their share). */
export interface PoolPass {
  /** Jobs being claimed this tick (by any pool): not to be taken again; a pool adds the ones it claims. */
  claiming: Set<string>;
  /** Free places the pools before this one left: a burst pool sends work only when the LAN cannot take it. */
  freeBefore: number;
  /** The queue in dispatch order, at most `slots` jobs' worth of candidates. */
  candidates(slots: number): Iterable<JobRow>;
  /**
   * Several engines on one farm: whether a LAN workstation another engine drives can take this job
   * now (read from the store at the first ask of a pass). Absent: this engine drives every workstation.
   */
  lanFreeElsewhere?: (job: JobRow) => boolean;
}

/** Why a queued job waits for a pool (jobs.why and every queued job's waitReason add it), and whether the pool could ever take it. */
export type PoolWait = ((job: WaitingJob) => string | null) & {
  couldTake?: (job: WaitingJob) => boolean;
};

/** What a pool's wait needs of a queued job's row (its blocked mark too: a blocked job waits for nothing yet). */
export type WaitingJob = Pick<
  JobRow,
  'id' | 'enqueued_at' | 'priority' | 'tags_json' | 'vram_gb' | 'blocked' | 'unblocked_at'
>;

export interface WorkerPool {
  readonly kind: InstanceKind;
  /** Load its instances, begin health checks. */
  start(): void;
  /** The app is closing: stop following; what runs on the servers keeps running, its attempts stay open for recovery. */
  close(): Promise<void>;
  /** "Stop farm": take every running attempt off its server; their jobs go back to the queue. */
  stopAll(): Promise<void>;
  /** These jobs were cancelled by an operator (already recorded): take their attempts off the servers. */
  cancelled(jobIds: readonly string[]): void;
  /** Is an attempt of this job followed here now (a cancel made elsewhere concerns this pool)? */
  follows(jobId: string): boolean;
  /** An instance was added, edited or removed: reload it if it is this pool's. */
  refresh(instanceId: string): void;
  /** Is this instance one of this pool's? */
  owns(instanceId: string | null): boolean;
  /** Start: an attempt left open on one of this pool's instances is taken up again (followed, collected or requeued). */
  recover(attempt: AttemptRow): void;
  /** Attempts this engine follows on one of its instances now (a lease hand-over takes idle ones first). */
  attemptsOn(instanceId: string): number;
  /**
   * Several engines on one PostgreSQL farm: this engine no longer holds the instance's lease. Its
   * runners there stop following at once and send nothing more; their attempts stay open for the
   * engine that takes it.
   */
  leaseLost(instanceId: string): void;
  /** Several engines: this engine took the instance's lease (its open attempts are recovered apart, through `recover`). */
  leaseGained?(instanceId: string): void;
  /** Its instances' cards, with what runs there. */
  views(): InstanceView[];
  /** Attempts open in this pool now. */
  readonly size: number;
  /** One dispatch pass: claim queued jobs its instances can take now; how many free places it left. */
  pass(p: PoolPass): number;
  /** Why a queued job waits for this pool, or null; () => null when it never makes a job wait. */
  waitOfJobs(): PoolWait;
}
