/**
 * The engine: implements the API contract (shared/api.ts) over the store. Transports — in-process
 * calls, the CLI, HTTP/WebSocket, Electron IPC — call `call`, which validates the input with the
 * contract's schemas and runs the handler; events go out through `events`. The handlers live per
 * domain in handlers/; this class opens the store, wires the announcer and the scheduler, and
 * composes them. No Electron, no DOM.
 */
import { runpodKey } from './pools/runpod/api-key.js';
import { cloudHandlers } from './handlers/cloud.js';
import { join } from 'node:path';
import {
  API_INPUTS,
  isApiMethod,
  type ApiHandlers,
  type ApiInput,
  type ApiMethod,
  type ApiOutputs,
} from '../../shared/api.js';
import { ShotfarmError } from '../../shared/errors.js';
import { LOCAL_CALLER, type Caller } from '../../shared/people.js';
import type { ExportKind } from '../../shared/exports.js';
import { describeIssues } from '../../shared/shot-list-schema.js';
import { JobAnnouncer } from './announcer.js';
import { authorize } from './auth/authorize.js';
import { identify, peopleDefined, type Identity } from './auth/identify.js';
import type { TokenBytes } from './auth/tokens.js';
import { systemClock, systemRandom, systemTimers, type Clock, type RandomSource, type Timers } from './clock.js';
import { EventBus } from './event-bus.js';
import type { CsvStream } from './exports/csv-export.js';
import { streamExport } from './exports/export-tables.js';
import { assetHandlers } from './handlers/assets.js';
import { databaseHandlers } from './handlers/database.js';
import type { EngineContext } from './handlers/context.js';
import { exportHandlers } from './handlers/exports.js';
import { farmHandlers } from './handlers/farm.js';
import { hookHandlers } from './handlers/hooks.js';
import { forecastHandlers } from './handlers/forecast.js';
import { Forecaster } from './forecast/forecaster.js';
import { isHealthy } from '../../shared/domain.js';
import { importHandlers } from './handlers/import.js';
import { instanceHandlers } from './handlers/instances.js';
import { jobHandlers } from './handlers/jobs.js';
import { releaseHandlers } from './handlers/releases.js';
import { uploadHandlers } from './handlers/uploads.js';
import { UploadGate } from './uploads/upload-gate.js';
import { settingsHandlers } from './handlers/settings.js';
import { templateHandlers } from './handlers/templates.js';
import { userHandlers } from './handlers/users.js';
import { HookRunner } from './hooks/hook-runner.js';
import type { SchedulerConfig } from './settings/farm-config.js';
import { Scheduler } from './scheduler/scheduler.js';
import { TemplateCache } from './templates/template-cache.js';
import { jobViewBuilder } from './views/job-views.js';
import { LiveSettings } from './settings/live-settings.js';
import { DB_FILE_NAME, databaseFault, type Db } from './store/database.js';
import { openStore, storeLabel, storeTarget, type StoreTarget } from './store/store-target.js';
import { DatabaseLock } from './lock/database-lock.js';
import { LeaseManager } from './lock/lease-manager.js';
import { leasedWorkstations } from './store/instance-store.js';
import { MIGRATIONS } from './store/migrations/index.js';
import type { ExportFilter } from './store/export-filter.js';
import { instanceRow, listInstanceRows, toInstanceView } from './store/instance-store.js';
import { readFarmState } from './settings/farm-state.js';
import type { OutputFs } from './files/output-file.js';
import { startControlListener, type ControlListener } from './lock/control-listener.js';
import { EngineLock, LOCK_FILE_NAME } from './lock/engine-lock.js';
import { CLAIM_BEAT_MS, claimSide, FarmClaim } from './lock/farm-claim.js';
import { securePrivateFiles } from './files/private-files.js';
import { currentFarmPlaces, type FarmPlaces } from './files/farm-places.js';
import type { EngineKind, LockRecord } from './lock/lock-record.js';
import { NO_ENV, type EngineEnv } from './engine-env.js';
import { randomId } from './ids.js';
import { FarmNotices } from './notices/farm-notices.js';
import { TELL_NOBODY } from './notices/notice-outbox.js';

/** What `farm engines` shows as an engine's version: the schema it runs (engines sharing a farm must agree on it). */
const ENGINE_VERSION = `schema ${MIGRATIONS.length}`;

export interface EngineOptions {
  dataDir: string;
  /**
   * A PostgreSQL database to use as the farm's store (`postgres://…`), which the host read from
   * `--database` or SHOTFARM_DATABASE_URL; without it, the SQLite file in the data folder. The
   * data folder still holds outputs, uploads and the engine's lock file either way.
   */
  databaseUrl?: string | null;
  clock?: Clock;
  random?: RandomSource;
  timers?: Timers;
  /** Where outputs go unless the operator set output_root; default `<dataDir>/outputs`. */
  outputRoot?: string;
  /** better-sqlite3's addon to load (the desktop app's Electron build); default node_modules' own. */
  nativeBinding?: string;
  log?: (message: string) => void;
  /**
   * The host that runs the farm (the desktop app's engine, `serve`, `run`): the data folder's farm
   * lock is taken as the engine opens, and a second engine is refused (lock/engine-lock.ts).
   * Without it, the lock is taken when the scheduler starts (as 'embedded'); one-shot engines (the
   * CLI's direct commands) never take it.
   */
  kind?: EngineKind;
  /** How output files are written (tests: a disk that fills up); default the real file system. */
  outputFs?: OutputFs;
  /** Where personal tokens' random bytes come from (tests); default node:crypto. */
  tokenBytes?: TokenBytes;
  /**
   * The host's environment, read once by the host (engine-env.ts): RUNPOD_API_KEY, the AWS_* S3
   * variables, and what command hooks run with. Default: none (tests, one-off tools).
   */
  env?: EngineEnv;
}

export class Engine {
  readonly db: Db;
  /** The SQLite file in the data folder (on PostgreSQL, where it would be: the data folder's name in messages). */
  readonly dbFile: string;
  /** Which store this engine opened (the SQLite file, or the PostgreSQL database). */
  readonly store: StoreTarget;
  readonly events: EventBus;
  /** Runs the operator's hooks when jobs complete or fail for good; never blocks the caller. */
  readonly hooks: HookRunner;
  /** The forecast per project, episode and sequence (docs/forecast.md). */
  readonly forecast: Forecaster;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly timers: Timers;
  /** The default output folder (the output_root setting, when set, overrides it). */
  readonly outputRoot: string;
  /** The operator's farm settings and state, applied to the running farm (settings/live-settings.ts). */
  readonly settings: LiveSettings;
  /** Present once `startScheduler` ran: the CLI's one-shot commands never start it. */
  scheduler: Scheduler | null = null;
  /** The data folder (the RunPod key file lives beside the database). */
  readonly dataDir: string;
  /** The environment the host passed in: the engine reads no other. */
  readonly env: EngineEnv;
  readonly handlers: ApiHandlers;
  /** Which uploads each sender announced and may send now (uploads/upload-gate.ts). */
  readonly uploadGate = new UploadGate();
  /** Stored templates by id, read once: the one cache the handlers, the views and the farm share. */
  readonly templates: TemplateCache;
  private readonly announcer: JobAnnouncer;
  /** Jobs whose change could not be announced while the store could not be read (announceFromFarm). */
  private readonly unannounced = new Set<string>();
  private readonly log: (message: string) => void;
  /** The data folder's farm, while this engine runs it (and the listener one-shot CLI commands call). */
  private farmLock: EngineLock | null = null;
  /** On PostgreSQL, the farm's advisory lock in the database (lock/database-lock.ts). */
  private databaseLock: DatabaseLock | null = null;
  /** The claim in the database beside that lock (lock/farm-claim.ts; SQLite only), and its refresh timer. */
  private claim: FarmClaim | null = null;
  /**
   * On PostgreSQL, once this engine took the farm: its row among the farm's engines and the
   * workstations it leases (lock/lease-manager.ts; renewed while the scheduler runs).
   */
  leases: LeaseManager | null = null;
  /** The scheduler's live config while it runs (the lease manager reads lease_s from it). */
  private liveConfig: SchedulerConfig | null = null;
  private claimTimer: unknown = null;
  private claimFailing = false;
  private control: Promise<ControlListener | null> = Promise.resolve(null);
  private readonly opts: EngineOptions;
  private closed = false;
  /**
   * On PostgreSQL, what this engine tells the other engines on its database and hears from them
   * (notices/farm-notices.ts); null on SQLite (one engine per data folder).
   */
  readonly notices: FarmNotices | null;

  constructor(opts: EngineOptions) {
    this.opts = opts;
    this.clock = opts.clock ?? systemClock;
    this.random = opts.random ?? systemRandom;
    this.dataDir = opts.dataDir;
    this.env = opts.env ?? NO_ENV;
    this.dbFile = join(opts.dataDir, DB_FILE_NAME);
    this.store = storeTarget(opts.dataDir, opts.databaseUrl);
    this.log = opts.log ?? ((m) => process.stderr.write(`shotfarm: ${m}\n`));
    // Files another local user could read are said and made private before anything is read from them.
    securePrivateFiles(opts.dataDir, this.log);
    this.db = openStore(this.store, this.clock, { nativeBinding: opts.nativeBinding });
    // Before the farm is taken: its control listener logs through these.
    this.timers = opts.timers ?? systemTimers;
    // One engine per data folder: the host takes the farm first thing (a database that cannot be opened says so first).
    if (opts.kind) {
      try {
        this.takeFarm(opts.kind);
      } catch (err) {
        this.db.close();
        throw err;
      }
    }
    this.outputRoot = opts.outputRoot ?? join(opts.dataDir, 'outputs');
    this.templates = new TemplateCache(this.db);
    this.events = new EventBus((topic, err) =>
      this.log(`a ${topic} subscriber failed: ${(err as Error).stack ?? String(err)}`),
    );
    this.hooks = new HookRunner({
      db: this.db,
      clock: this.clock,
      timers: this.timers,
      random: this.random,
      log: this.log,
      env: this.env,
      onSettled: (delivery) => this.events.emit('hook.delivery', { delivery }),
    });
    const pg = this.db.postgres;
    this.notices = pg
      ? new FarmNotices({
          from: randomId(),
          db: this.db,
          postgres: pg,
          timers: this.timers,
          log: this.log,
          ears: {
            kick: () => this.scheduler?.kick(),
            jobs: (ids) => {
              this.scheduler?.changedElsewhere(ids);
              // Announced, the forecaster hears them on the bus; else it is told they changed.
              if (!this.announcer.announceHeard(ids)) this.forecast.changed();
            },
            reread: () => this.events.emit('jobs.bulkChanged', { count: 0 }),
            settings: () => void this.settings.reload(),
            farm: () => this.heardFarmState(),
            instances: (ids) => this.heardInstances(ids),
            allInstances: () => this.heardInstances(listInstanceRows(this.db).map((r) => r.id)),
          },
        })
      : null;
    const others = this.notices?.outbox ?? TELL_NOBODY;
    this.settings = new LiveSettings({
      db: this.db,
      others,
      timers: this.timers,
      events: this.events,
      log: this.log,
      defaultOutputRoot: this.outputRoot,
      defaultReleasesRoot: join(opts.dataDir, 'releases'),
    });
    // One builder of job views for the announcer and the handlers alike: they cannot differ.
    const views = jobViewBuilder({
      db: this.db,
      clock: this.clock,
      farm: () => this.scheduler,
      templates: this.templates,
      settings: this.settings,
    });
    this.announcer = new JobAnnouncer(this.db, this.events, this.hooks, views, others);
    this.forecast = new Forecaster({
      db: this.db,
      clock: this.clock,
      timers: this.timers,
      events: this.events,
      settings: this.settings,
      templates: this.templates,
      instances: () =>
        this.scheduler?.instanceViews() ?? listInstanceRows(this.db).map((r) => toInstanceView(this.db, r)),
      // With no farm in this process (a one-shot CLI), the forecast is of the farm as the store knows it.
      dispatching: () =>
        this.scheduler
          ? this.scheduler.farmState === 'running'
          : listInstanceRows(this.db).some((r) => isHealthy(toInstanceView(this.db, r).health)),
      liveRun: (jobId) => this.scheduler?.live.ofJob(jobId) ?? null,
      announce: (ids) => this.announceFromFarm(ids),
      log: this.log,
    });
    // A group turning late is announced once by the engine that follows the farm: hooks hear it there.
    this.events.on('forecast.late', ({ group }) => this.hooks.notifyLate(group));
    const ctx: EngineContext = {
      db: this.db,
      dbFile: this.dbFile,
      store: this.store,
      clock: this.clock,
      random: this.random,
      events: this.events,
      settings: this.settings,
      env: this.env,
      announcer: this.announcer,
      views,
      templates: this.templates,
      farm: () => this.scheduler,
      uploadGate: this.uploadGate,
      forecast: this.forecast,
      others,
    };
    this.handlers = {
      ...farmHandlers(ctx),
      ...jobHandlers(ctx),
      ...importHandlers(ctx),
      ...templateHandlers(ctx),
      ...instanceHandlers(ctx),
      ...assetHandlers(ctx),
      ...releaseHandlers(ctx),
      ...hookHandlers(ctx),
      ...settingsHandlers(ctx),
      ...exportHandlers(ctx),
      ...uploadHandlers(ctx),
      ...cloudHandlers(ctx),
      ...userHandlers(ctx, opts.tokenBytes),
      ...databaseHandlers(ctx),
      ...forecastHandlers(ctx),
    };
  }

  /** Views built of jobs other engines changed (announcer.ts: none while no client listens). */
  get heardJobViews(): number {
    return this.announcer.heardViews;
  }

  /**
   * Starts probing the workstations, reconciles attempts left open, and begins dispatching (unless
   * the farm was left paused or stopped). `over` replaces defaults (tests, benchmarks); the
   * operator's farm settings apply on top of it.
   */
  startScheduler(over: Partial<SchedulerConfig> = {}): Scheduler {
    if (this.scheduler) return this.scheduler;
    // Recovery and dispatch run only in the lock holder: a second engine is refused here.
    if (!this.farmLock) this.takeFarm('embedded');
    const config = this.settings.schedulerConfig(over);
    this.liveConfig = config;
    this.scheduler = new Scheduler({
      db: this.db,
      clock: this.clock,
      random: this.random,
      timers: this.timers,
      events: this.events,
      config,
      templates: this.templates,
      leases: this.leases,
      announce: (ids) => this.announceFromFarm(ids),
      log: this.log,
      ...(this.opts.outputFs ? { outputFs: this.opts.outputFs } : {}),
      env: this.env,
      runpodKey: () => runpodKey(this.db, this.dataDir, this.env),
    });
    this.scheduler.start();
    this.leases?.start();
    this.settings.attach(this.scheduler);
    // The farm wakes when another engine on its database imports, bumps, pauses… (PostgreSQL).
    this.listenToOtherEngines();
    // Deliveries queued by earlier runs (or by CLI processes) are sent by the running farm.
    this.hooks.resumePending();
    this.forecast.start();
    return this.scheduler;
  }

  /**
   * On PostgreSQL, hears what the other engines on the database change (their notices): its farm
   * wakes, its clients see their jobs' events. The scheduler starts it; a host that shows the farm
   * without running it calls it itself. Nothing on SQLite.
   */
  listenToOtherEngines(): void {
    if (!this.closed) this.notices?.inbox.start();
  }

  /** Another engine changed the farm state: applied here (the farm emits it), or said to this engine's clients. */
  private heardFarmState(): void {
    void this.settings.reload();
    if (!this.scheduler) this.events.emit('farm.changed', { farm: readFarmState(this.db) });
  }

  /** Workstations another engine added, edited or removed: the farm here reloads them, the clients get their cards. */
  private heardInstances(ids: readonly string[]): void {
    const cards = new Map((this.scheduler?.instanceViews() ?? []).map((v) => [v.id, v]));
    for (const id of ids) {
      this.scheduler?.instanceChanged(id);
      const row = instanceRow(this.db, id);
      if (!row) this.events.emit('instance.removed', { id });
      else this.events.emit('instance.changed', { instance: cards.get(id) ?? toInstanceView(this.db, row) });
    }
  }

  /**
   * The farm's announcements read the changed jobs back from the store. While it cannot be read
   * (a PostgreSQL server gone), the farm holds (the storage hold says why) and the jobs are
   * announced with the next announcement that reads the store, so no change is left unsaid.
   */
  private announceFromFarm(ids: readonly string[]): void {
    const all = this.unannounced.size ? [...new Set([...this.unannounced, ...ids])] : ids;
    try {
      this.announcer.announceFarm(all);
      this.unannounced.clear();
    } catch (err) {
      if (!databaseFault(err)) throw err;
      for (const id of ids) this.unannounced.add(id);
      this.scheduler?.storage.failed('announcing job changes', err);
    }
  }

  /**
   * Stops the farm here (gracefully: downloads in flight finish, bounded) but keeps the store open,
   * so a host can still say how it left things; `close` does the rest.
   */
  async stopScheduler(): Promise<void> {
    this.forecast.stop();
    this.notices?.inbox.stop();
    await this.settings.close();
    // Renewing stops first: nothing is taken while the runners detach; then every lease is handed over at once.
    this.leases?.pause();
    await this.scheduler?.close();
    this.scheduler = null;
    this.liveConfig = null;
    this.leases?.stop();
  }

  /**
   * The lease manager of a PostgreSQL farm (lock/lease-manager.ts), wired to this engine's
   * scheduler: on PostgreSQL several engines share the farm, and this one drives only the
   * workstations it leases.
   */
  private leaseManager(kind: EngineKind): LeaseManager {
    return new LeaseManager({
      db: this.db,
      timers: this.timers,
      log: this.log,
      leaseMs: () => this.liveConfig?.leaseMs ?? this.settings.get('lease_s') * 1000,
      kind,
      version: ENGINE_VERSION,
      workstations: () => leasedWorkstations(this.db),
      busy: (id) => this.scheduler?.attemptsOn(id) ?? 0,
      gained: (id) => this.scheduler?.leaseGained(id),
      lost: (id) => this.scheduler?.leaseLost(id),
    });
  }

  /** Who runs this data folder's farm, when this engine does (its lock record). */
  get holder(): LockRecord | null {
    return this.farmLock?.current ?? null;
  }

  /** `serve` says where it serves, for the record a second engine quotes. */
  announceServeUrl(url: string): void {
    this.farmLock?.update({ serveUrl: url });
  }

  /**
   * Takes the data folder's farm (or throws, naming who has it), then opens the loopback listener
   * through which one-shot CLI commands in other terminals reach this engine; the record says where
   * once it listens.
   */
  private takeFarm(kind: EngineKind): void {
    const lock = EngineLock.acquire(this.opts.dataDir, kind, this.clock, {
      ...(this.opts.nativeBinding ? { nativeBinding: this.opts.nativeBinding } : {}),
    });
    // The lock file can be deleted or replaced under us; the claim in the database cannot. On
    // PostgreSQL several engines share the farm (each drives the workstations it leases): they hold
    // its advisory lock shared, which only a move into the database (db migrate) keeps out.
    try {
      this.databaseLock = DatabaseLock.take(this.db, storeLabel(this.store), this.opts.dataDir, true);
      if (this.databaseLock) {
        // Listed among the farm's engines from now on (a move into the database names it when refused).
        this.leases = this.leaseManager(kind);
        this.leases.register();
      } else
        this.claim = FarmClaim.take(
          this.db,
          this.opts.dataDir,
          claimSide(kind, this.db, this.dbFile, join(this.opts.dataDir, LOCK_FILE_NAME)),
        );
    } catch (err) {
      this.databaseLock?.release();
      this.databaseLock = null;
      this.leases = null;
      lock.release();
      if (err instanceof ShotfarmError) throw err;
      throw new ShotfarmError(
        'storage',
        `Cannot claim the farm in the database ${storeLabel(this.store)}: ${(err as Error).message}.`,
      );
    }
    this.farmLock = lock;
    this.beatClaim();
    this.control = startControlListener((method, input) => this.call(method, input), this.log).then(
      (listener) => {
        if (this.farmLock !== lock) {
          void listener.close();
          return null;
        }
        lock.update({ control: { url: listener.url, token: listener.token } });
        return listener;
      },
      (err: unknown) => {
        this.log(
          `the control listener did not start: ${(err as Error).message}; other terminals' commands cannot reach this farm`,
        );
        return null;
      },
    );
  }

  /** Refreshes the claim every few seconds; if a live engine took it, this one stops dispatching. */
  private beatClaim(): void {
    this.claimTimer = this.timers.setTimeout(() => {
      this.claimTimer = null;
      if (this.closed || (!this.claim && !this.databaseLock)) return;
      let held = true;
      try {
        held = (this.databaseLock?.refresh() ?? true) && (this.claim?.refresh() ?? true);
        this.claimFailing = false;
      } catch (err) {
        // A full disk or a long write elsewhere: said once, tried again at each beat (the storage hold says the rest).
        if (!this.claimFailing)
          this.log(
            `the farm's claim could not be refreshed (${(err as Error).message}); trying again every ${CLAIM_BEAT_MS / 1000} s`,
          );
        this.claimFailing = true;
      }
      if (held) return this.beatClaim();
      this.log(
        "another engine has taken this data folder's farm (its claim in the database): this one stops dispatching; stop it and leave the farm to the other",
      );
      void this.stopScheduler();
    }, CLAIM_BEAT_MS);
  }

  /**
   * Stops deciding and following; prompts keep running on the servers (closing the app is not an
   * incident). Downloads in flight finish first, for a bounded time (Scheduler.close). Then the farm
   * is given up: another engine may take it.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.stopScheduler();
    await this.hooks.close();
    const lock = this.farmLock;
    this.farmLock = null;
    await (await this.control)?.close();
    if (this.claimTimer !== null) this.timers.clearTimeout(this.claimTimer);
    try {
      this.claim?.release();
    } catch (err) {
      this.log(
        `the farm's claim could not be given up (${(err as Error).message}); the next engine takes it over once it is seen stale`,
      );
    }
    this.claim = null;
    this.databaseLock?.release();
    this.databaseLock = null;
    // What this engine changed last is told before the store closes (a one-shot command's import too).
    this.notices?.close();
    this.db.close();
    lock?.release();
    await this.db.closed();
  }

  /** The farm's own folders (files/farm-places.ts): never an input, nor a host's inputs folder. */
  farmPlaces(): FarmPlaces {
    return currentFarmPlaces(this.dbFile, this.settings);
  }

  /** Whether people are defined (then `serve` asks every caller for a personal token). */
  peopleDefined(): boolean {
    return peopleDefined(this.db);
  }

  /** The person a presented token belongs to, read from the store now (a revocation counts at once). */
  identify(token: string | null): Identity {
    return identify(this.db, token);
  }

  /**
   * Validates the input against the contract, applies the permission policy for the caller (the
   * solo operator, `local`, by default: this machine's CLI and desktop app), then runs the handler.
   * The single entry for every transport.
   */
  async call<M extends ApiMethod>(method: M, input: unknown, caller: Caller = LOCAL_CALLER): Promise<ApiOutputs[M]> {
    // An own key of the contract only: `constructor` or `__proto__` are found on every object.
    if (!isApiMethod(method)) throw new ShotfarmError('not_found', `Unknown method ${String(method).slice(0, 80)}.`);
    const parsed = API_INPUTS[method].safeParse(input ?? {});
    if (!parsed.success) {
      throw new ShotfarmError('bad_input', `Invalid input for ${method}: ${describeIssues(parsed.error).join('; ')}`);
    }
    authorize(this.db, caller, method, parsed.data);
    const handler = this.handlers[method] as (i: ApiInput<M>, c: Caller) => Promise<ApiOutputs[M]>;
    return handler(parsed.data as ApiInput<M>, caller);
  }

  /**
   * An export's rows as a CSV stream (the headless server's download), under the same permission
   * policy as `export.runlog` / `export.ledger` for the caller: the download is no way around
   * "exports: lead/admin only".
   */
  streamExport(kind: ExportKind, filter: ExportFilter, caller: Caller): CsvStream {
    authorize(this.db, caller, kind === 'runlog' ? 'export.runlog' : 'export.ledger', filter);
    return streamExport(this.store, kind, filter);
  }
}
