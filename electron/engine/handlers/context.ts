/**
 * What every domain's handlers are given: the store, time, events, the announcer, and — when a farm
 * runs in this process — the scheduler's ports. Handler modules declare their part of `ApiHandlers`
 * over this context; the engine composes them (engine.ts) and stays the one entry (`call`).
 */
import type { ApiHandlers, ApiMethod } from '../../../shared/api.js';
import type { JobView } from '../../../shared/domain.js';
import { ShotfarmError } from '../../../shared/errors.js';
import type { JobAnnouncer } from '../announcer.js';
import type { Clock, RandomSource } from '../clock.js';
import type { EventBus } from '../event-bus.js';
import type { CapabilityPort } from '../intake/preview.js';
import type { Db } from '../store/database.js';

/** The handlers of the contract's methods named `<domain>.…`. */
export type DomainHandlers<D extends string> = Pick<ApiHandlers, Extract<ApiMethod, `${D}.${string}`>>;

/** What the handlers may ask of the scheduler (implemented by Scheduler; absent in one-shot CLI runs). */
export interface FarmPort extends CapabilityPort {
  /** Something changed that may allow a dispatch. */
  kick(): void;
  /** Jobs cancelled while running: interrupt and remove their prompts. */
  cancelled(jobIds: string[]): void;
  stopFarm(): Promise<void>;
  resumeFarm(): void;
  readonly isPaused: boolean;
  activeAttempts(): number;
  /** An instance was added, edited, drained, disabled or removed: reload it. */
  instanceChanged(id: string): void;
}

export interface EngineContext {
  db: Db;
  dbFile: string;
  clock: Clock;
  random: RandomSource;
  events: EventBus;
  /** Where outputs are stored; a ledger file outside it is never served. */
  outputRoot: string;
  announcer: JobAnnouncer;
  /** The farm running in this process, or null. */
  farm(): FarmPort | null;
}

/** Announces changed jobs and lets the dispatcher reconsider; answers with their views. */
export function changed(ctx: EngineContext, jobIds: readonly string[]): JobView[] {
  const views = ctx.announcer.announce(jobIds);
  ctx.farm()?.kick();
  return views;
}

/** The running farm, for the methods that only make sense with one. */
export function requireFarm(ctx: EngineContext): FarmPort {
  const farm = ctx.farm();
  if (!farm) throw new ShotfarmError('conflict', 'The farm is not running in this process (start the app or `shotfarm serve`).');
  return farm;
}
