/**
 * What every pool and every runner works with, whatever the kind of workstation: the store, time,
 * events, the farm's config, the tick's commit batch, the farm's wait for its storage.
 */
import type { Announce } from '../../announcer.js';
import type { Clock, RandomSource, Timers } from '../../clock.js';
import type { EventBus } from '../../event-bus.js';
import type { OutputFs } from '../../files/output-file.js';
import type { Db } from '../../store/database.js';
import type { SchedulerConfig } from '../../settings/farm-config.js';
import type { StorageHold } from './storage-hold.js';
import type { Batch } from './lease-fence.js';

/** What the scheduler and each of its runners work with: the store, time, events, the farm's config. */
export interface FarmDeps {
  db: Db;
  clock: Clock;
  random: RandomSource;
  timers: Timers;
  events: EventBus;
  config: SchedulerConfig;
  /** Job rows changed: the engine's announcer loads their views, emits events, notifies hooks. */
  announce: Announce;
  /** How output files are written (tests: a disk that fills up); default the real file system. */
  outputFs?: OutputFs;
}

/** What runners get beyond the farm's dependencies: the writes of one tick, committed together. */
export interface BatchDeps {
  batch: Batch;
}

/** What concluding an attempt needs, in every pool. */
export interface ConcludeDeps extends FarmDeps, BatchDeps {
  log: (message: string) => void;
  /** The farm's wait for its storage: a runner that hits a storage fault holds the farm and waits for the retry. */
  storage: StorageHold;
  /**
   * When this engine last came back from a stall of its own (frozen, suspended, its loop blocked;
   * ../../loop-stall.ts), 0 if none: a silence before it is the engine's, not the workstation's.
   */
  listeningSince: () => number;
}
