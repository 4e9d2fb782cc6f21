/**
 * What every domain's handlers are given: the store, time, events, the announcer, and — when a farm
 * runs in this process — the scheduler's ports. Handler modules declare their part of `ApiHandlers`
 * over this context; the engine composes them (engine.ts) and stays the one entry (`call`).
 */
import type { VramKnowledge } from '../templates/vram-knowledge.js';
import type { ApiHandlers, ApiMethod } from '../../../shared/api.js';
import type { InstanceView, JobView, ProbeView, StorageHoldView } from '../../../shared/domain.js';
import type { JobState } from '../../../shared/job-states.js';
import type { FarmState } from '../../../shared/farm-settings.js';
import type { JobAnnouncer } from '../announcer.js';
import type { Clock, RandomSource } from '../clock.js';
import type { EventBus } from '../event-bus.js';
import type { LivePhases } from '../pools/comfy-lan/live-attempts.js';
import type { AttemptWatchView } from '../pools/comfy-lan/attempt-watch.js';
import type { FarmFacts } from '../views/farm-facts.js';
import type { FolderDefaults } from '../settings/farm-settings.js';
import type { SettingsReader } from '../settings/setting-reader.js';
import type { StoreTarget } from '../store/store-target.js';
import type { Db } from '../store/database.js';
import type { EngineEnv } from '../engine-env.js';
import type { JobViews } from '../views/job-views.js';
import type { TemplateCache } from '../templates/template-cache.js';
import type { UploadGate } from '../uploads/upload-gate.js';
import type { Forecaster } from '../forecast/forecaster.js';
import type { FarmTeller } from '../notices/notice-outbox.js';

/** The handlers of the contract's methods named `<domain>.…`. */
export type DomainHandlers<D extends string> = Pick<ApiHandlers, Extract<ApiMethod, `${D}.${string}`>>;

/** What the handlers may ask of the scheduler (implemented by Scheduler; absent in one-shot CLI runs). */
export interface FarmPort {
  /** Something changed that may allow a dispatch. */
  kick(): void;
  /** Jobs cancelled while running: interrupt and remove their prompts. */
  cancelled(jobIds: string[]): void;
  /** The operator's farm state, as this farm acts on it. */
  readonly farmState: FarmState;
  /** Act on a newly recorded farm state (a stop resolves once its prompts are requeued). */
  applyFarmState(state: FarmState): Promise<void>;
  activeAttempts(): number;
  /** An instance was added, edited, drained, disabled or removed: reload it. */
  instanceChanged(id: string): void;
  /** A workstation was probed outside the farm's own timer (after Free VRAM): the farm uses what it answered now. */
  instanceProbed(id: string, probe: ProbeView): void;
  /** What the open attempts are doing now (held in memory), for the views. */
  readonly live: LivePhases;
  /** Node k of N and the latest preview image of the open attempts (held in memory). */
  readonly watch: AttemptWatchView;
  /** What the farm knows now (live probes, node lists, reservations): why jobs wait, an import's node check. */
  waitFacts(): FarmFacts;
  /** Why the farm waits for its storage (a full disk, a locked database), or null. */
  storageHold(): StorageHoldView | null;
  /** Jobs by state, kept incrementally by the farm (no recount per look). */
  jobsByState(): Record<JobState, number>;
  /** The workstations' cards as the farm holds them. */
  instanceViews(): InstanceView[];
  /** The learned VRAM needs this farm decides with (a pin made here applies at its next decision). */
  readonly vram?: VramKnowledge;
}

/**
 * What the handlers may ask of the live farm settings (implemented by LiveSettings): `get(key)` is
 * the one way to read a setting's value outside the settings module.
 */
export interface SettingsPort extends SettingsReader {
  /** The engine's own output folder (`<data>/outputs` unless the host chose another): output_root's default. */
  readonly defaultOutputRoot: string;
  /** The engine's own folder for each folder setting (output_root, releases_root): what each is when unset. */
  readonly folderDefaults: FolderDefaults;
  /** Every folder outputs may have been written to, the current one first; a ledger file outside them is never served. */
  outputRoots(): string[];
  /**
   * A setting or the farm state was recorded in this process: the farm here (if any) applies it
   * now, and the other engines on the database are told.
   */
  reload(changed: 'settings' | 'farm'): Promise<void>;
}

export interface EngineContext {
  db: Db;
  /** The data folder's SQLite file (its folder is the data folder, whichever store the farm uses). */
  dbFile: string;
  /** The store the engine opened: exports read it on a connection of their own. */
  store: StoreTarget;
  clock: Clock;
  random: RandomSource;
  events: EventBus;
  /** The farm settings: each one's value (`settings.get(key)`), where outputs go, and applying a change made here. */
  settings: SettingsPort;
  announcer: JobAnnouncer;
  /** Rows to job views: the same function the announcer builds its views with (views/job-views.ts). */
  views: JobViews;
  /** The engine's one template cache (a stored version never changes). */
  templates: TemplateCache;
  /** The farm running in this process, or null. */
  farm(): FarmPort | null;
  /** Which uploads each sender announced (uploads.check) and may now send (the server's PUT route). */
  uploadGate: UploadGate;
  /** The environment the host passed in (RUNPOD_API_KEY, …): the engine never reads process.env. */
  env: EngineEnv;
  /** The forecast per project, episode and sequence, kept and recomputed as the farm runs. */
  forecast: Forecaster;
  /**
   * The other engines on this PostgreSQL database (nobody on SQLite): told of what they would not
   * otherwise hear at once. Jobs are told through the announcer, settings through `settings.reload`.
   */
  others: Pick<FarmTeller, 'instance' | 'templates'>;
}

/** Announces changed jobs and lets the dispatcher reconsider; answers with their views. */
export function changed(ctx: EngineContext, jobIds: readonly string[]): JobView[] {
  const views = ctx.announcer.announce(jobIds);
  ctx.farm()?.kick();
  return views;
}

/** A workstation was added, edited or removed here: the farm here reloads it, and the other engines are told. */
export function instanceChanged(ctx: EngineContext, id: string): void {
  ctx.farm()?.instanceChanged(id);
  ctx.others.instance(id);
}
