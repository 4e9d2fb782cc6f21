/**
 * The engine: implements the API contract (shared/api.ts) over the store. Transports — in-process
 * calls, the CLI, HTTP/WebSocket, Electron IPC — validate input with the contract's schemas and
 * call `handlers`; events go out through `events`. No Electron, no DOM.
 */
import { join } from 'node:path';
import { API_INPUTS, type ApiHandlers, type ApiInput, type ApiMethod, type ApiOutputs } from '../../shared/api.js';
import type { ImportPreview, InstanceView, JobView } from '../../shared/domain.js';
import { ShotfarmError } from '../../shared/errors.js';
import { describeIssues } from '../../shared/shot-list-schema.js';
import { systemClock, systemRandom, systemTimers, type Clock, type RandomSource, type Timers } from './clock.js';
import { EventBus } from './event-bus.js';
import { exportLedger } from './exports/ledger.js';
import { exportRunlog } from './exports/runlog.js';
import { randomId } from './ids.js';
import { commitRows } from './intake/commit-import.js';
import { readCsvShotList } from './intake/csv-shot-list.js';
import { readJsonShotList } from './intake/json-shot-list.js';
import { checkShotListText } from './intake/text-check.js';
import { checkRows, type CapabilityCheck, type CheckedRow } from './intake/preview.js';
import { bumpJobs, cancelJobs, holdJobs, moveJobsToTop, newTakes, releaseJobs, retryJobs, type ActionContext } from './job-actions.js';
import { DB_FILE_NAME, openDatabase, type Db } from './store/database.js';
import {
  deleteInstance, findInstance, insertInstance, instanceRow, listInstanceRows, normaliseUrl, setAdminState, toInstanceView,
  updateInstance,
} from './store/instance-store.js';
import { toJobView } from './store/job-rows.js';
import { countByState, jobRow, listJobIds, listJobs } from './store/job-store.js';
import { listLatestTemplates, saveTemplate, toTemplateView } from './store/template-store.js';
import { parseTemplateFile } from './templates/template-file.js';
import { failureGroups, jobAttempts, timeline } from './queries/attempts.js';
import { listAssets, setApproved } from './queries/assets.js';
import { freezeRelease } from './freeze/freeze.js';
import { verifyManifest, verifyPassed } from './freeze/verify.js';
import { HookRunner } from './hooks/hook-runner.js';
import { getHooks, setHooks } from './hooks/hook-settings.js';
import { listDeliveries } from './hooks/delivery-store.js';
import { schedulerConfig, type SchedulerConfig } from './scheduler/config.js';
import { Scheduler } from './scheduler/scheduler.js';

export interface EngineOptions {
  dataDir: string;
  clock?: Clock;
  random?: RandomSource;
  /** Checks templates against the workstations' node lists; installed by the scheduler. */
  capabilityCheck?: CapabilityCheck;
  timers?: Timers;
  /** Where outputs go; default `<dataDir>/outputs`. */
  outputRoot?: string;
  /** better-sqlite3's addon to load (the desktop app's Electron build); default node_modules' own. */
  nativeBinding?: string;
  log?: (message: string) => void;
}

interface StoredPreview {
  preview: ImportPreview;
  rows: CheckedRow[];
  createdAt: number;
}

/** Previews are kept for the operator to confirm; after this they must be made again. */
const PREVIEW_TTL_MS = 60 * 60_000;
const MAX_PREVIEWS = 20;

export class Engine {
  readonly db: Db;
  readonly dbFile: string;
  readonly events: EventBus;
  /** Runs the operator's hooks when jobs complete or fail for good; never blocks the caller. */
  readonly hooks: HookRunner;
  readonly clock: Clock;
  readonly random: RandomSource;
  capabilityCheck: CapabilityCheck | undefined;
  readonly timers: Timers;
  readonly outputRoot: string;
  /** Present once `startScheduler` ran: the CLI's one-shot commands never start it. */
  scheduler: Scheduler | null = null;
  private readonly log: (message: string) => void;
  private readonly previews = new Map<string, StoredPreview>();

  constructor(opts: EngineOptions) {
    this.clock = opts.clock ?? systemClock;
    this.random = opts.random ?? systemRandom;
    this.dbFile = join(opts.dataDir, DB_FILE_NAME);
    this.db = openDatabase(this.dbFile, this.clock, { nativeBinding: opts.nativeBinding });
    this.capabilityCheck = opts.capabilityCheck;
    this.timers = opts.timers ?? systemTimers;
    this.outputRoot = opts.outputRoot ?? join(opts.dataDir, 'outputs');
    this.log = opts.log ?? ((m) => process.stderr.write(`shotfarm: ${m}\n`));
    this.events = new EventBus((topic, err) => this.log(`a ${topic} subscriber failed: ${(err as Error).stack ?? String(err)}`));
    this.hooks = new HookRunner({
      db: this.db, clock: this.clock, timers: this.timers, random: this.random, log: this.log,
      onSettled: (delivery) => this.events.emit('hook.delivery', { delivery }),
    });
  }

  /** Starts probing the workstations, reconciles attempts left open, and begins dispatching. */
  startScheduler(over: Partial<SchedulerConfig> = {}): Scheduler {
    if (this.scheduler) return this.scheduler;
    this.scheduler = new Scheduler({
      db: this.db, clock: this.clock, random: this.random, timers: this.timers, events: this.events,
      config: schedulerConfig(this.outputRoot, over), publish: (ids) => this.publish(ids), log: this.log,
    });
    this.scheduler.start();
    // Deliveries queued by earlier runs (or by CLI processes) are sent by the running farm.
    this.hooks.resumePending();
    // Import previews can now check node classes and models against what the workstations report.
    const scheduler = this.scheduler;
    this.capabilityCheck ??= (template, parameters) => scheduler.capabilityProblems(template, parameters);
    return this.scheduler;
  }

  /** Stops deciding and following; prompts keep running on the servers (closing the app is not an incident). */
  async close(): Promise<void> {
    await this.scheduler?.close();
    this.scheduler = null;
    await this.hooks.close();
    this.db.close();
  }

  /** Publishes job rows that changed, as events. */
  publish(ids: readonly string[]): void {
    this.views(ids);
  }

  private kick(): void {
    this.scheduler?.kick();
  }

  /** Validates the input against the contract, then runs the handler. The single entry for every transport. */
  async call<M extends ApiMethod>(method: M, input: unknown): Promise<ApiOutputs[M]> {
    const schema = API_INPUTS[method];
    if (!schema) throw new ShotfarmError('not_found', `Unknown method ${String(method)}.`);
    const parsed = schema.safeParse(input ?? {});
    if (!parsed.success) {
      throw new ShotfarmError('bad_input', `Invalid input for ${method}: ${describeIssues(parsed.error).join('; ')}`);
    }
    const handler = this.handlers[method] as (i: ApiInput<M>) => Promise<ApiOutputs[M]>;
    return handler(parsed.data as ApiInput<M>);
  }

  private ctx(actor = 'operator'): ActionContext {
    return { db: this.db, clock: this.clock, random: this.random, actor };
  }

  private views(ids: readonly string[]): JobView[] {
    const out: JobView[] = [];
    for (const id of ids) {
      const r = jobRow(this.db, id);
      if (r) out.push(toJobView(r));
    }
    // Completed and finally failed jobs reach their hooks here; notify is idempotent per job state.
    for (const job of out) this.hooks.notify(job);
    if (out.length > 200) this.events.emit('jobs.bulkChanged', { count: out.length });
    else for (const job of out) this.events.emit('job.changed', { job });
    return out;
  }

  /** Publishes changed jobs and lets the dispatcher reconsider. */
  private changed(ids: readonly string[]): JobView[] {
    const views = this.views(ids);
    this.kick();
    return views;
  }

  private instanceView(id: string): InstanceView {
    const r = instanceRow(this.db, id);
    if (!r) throw new ShotfarmError('not_found', `Workstation ${id} does not exist.`);
    return toInstanceView(this.db, r);
  }

  private resolveInstanceId(idOrName: string): string {
    const r = findInstance(this.db, idOrName);
    if (!r) throw new ShotfarmError('not_found', `No workstation named or numbered "${idOrName}".`);
    return r.id;
  }

  private uniqueInstance(fields: { name: string; url: string }, selfId: string | null): void {
    for (const r of listInstanceRows(this.db)) {
      if (r.id === selfId) continue;
      if (r.name === fields.name) throw new ShotfarmError('conflict', `A workstation is already named "${fields.name}".`);
      if (r.url === normaliseUrl(fields.url)) {
        throw new ShotfarmError('conflict', `Workstation "${r.name}" already uses ${r.url}.`);
      }
    }
  }

  private pruneViews(): void {
    const now = this.clock.now();
    for (const [id, p] of this.previews) if (now - p.createdAt > PREVIEW_TTL_MS) this.previews.delete(id);
    while (this.previews.size > MAX_PREVIEWS) this.previews.delete(this.previews.keys().next().value as string);
  }

  readonly handlers: ApiHandlers = {
    'farm.status': async () => {
      const instances = listInstanceRows(this.db).map((r) => toInstanceView(this.db, r));
      const probed = instances.filter((i) => i.lastProbeAt !== null);
      return {
        jobsByState: countByState(this.db),
        instances,
        healthyInstances: probed.length ? probed.filter((i) => i.health === 'idle' || i.health === 'busy' || i.health === 'draining').length : null,
        dispatching: this.scheduler !== null && !this.scheduler.isPaused,
        activeAttempts: this.scheduler?.activeAttempts() ?? 0,
      };
    },
    'farm.stop': async () => {
      if (!this.scheduler) throw new ShotfarmError('conflict', 'The farm is not running in this process (start the app or `shotfarm serve`).');
      await this.scheduler.stopFarm();
      return this.handlers['farm.status']({});
    },
    'farm.resume': async () => {
      if (!this.scheduler) throw new ShotfarmError('conflict', 'The farm is not running in this process (start the app or `shotfarm serve`).');
      this.scheduler.resumeFarm();
      return this.handlers['farm.status']({});
    },
    'jobs.list': async (i) => listJobs(this.db, i),
    'jobs.get': async ({ id }) => {
      const r = jobRow(this.db, id);
      if (!r) throw new ShotfarmError('not_found', `Job ${id} does not exist.`);
      return toJobView(r);
    },
    'jobs.ids': async ({ filter }) => listJobIds(this.db, filter),
    'jobs.bump': async ({ ids, priority }) => this.changed(bumpJobs(this.ctx(), ids, priority)),
    'jobs.moveToTop': async ({ ids }) => this.changed(moveJobsToTop(this.ctx(), ids)),
    'jobs.hold': async ({ ids }) => this.changed(holdJobs(this.ctx(), ids)),
    'jobs.release': async ({ ids }) => this.changed(releaseJobs(this.ctx(), ids)),
    'jobs.cancel': async ({ ids }) => {
      const { ids: changed, wereRunning } = cancelJobs(this.ctx(), ids);
      this.scheduler?.cancelled(wereRunning.map((r) => r.id));
      return this.changed(changed);
    },
    'jobs.retry': async ({ ids }) => this.changed(retryJobs(this.ctx(), ids)),
    'jobs.newTake': async ({ ids, pinSeed }) => this.changed(newTakes(this.ctx(), ids, pinSeed)),

    'jobs.attempts': async ({ id }) => jobAttempts(this.db, id),
    'failures.list': async ({ limitPerGroup }) => failureGroups(this.db, limitPerGroup),
    'timeline.get': async ({ from, to }) => timeline(this.db, from, to),
    'assets.list': async (f) => listAssets(this.db, f),
    'assets.approve': async ({ ids, approved }) => ({ changed: setApproved(this.db, ids, approved) }),

    'import.preview': async ({ fileName, content, baseDir, mapping }) => {
      checkShotListText(fileName, content);
      const isCsv = /\.(csv|tsv|txt)$/i.test(fileName) || (!/\.json$/i.test(fileName) && !content.trimStart().startsWith('{'));
      const read = isCsv ? readCsvShotList(content, fileName, mapping ?? {}) : readJsonShotList(content, fileName);
      if (read.rows.length === 0) throw new ShotfarmError('bad_input', `${fileName} has no shots to import.`);
      const { rows, notices } = checkRows(this.db, read.rows, baseDir ?? process.cwd(), this.capabilityCheck);
      const preview: ImportPreview = {
        previewId: randomId(),
        fileName,
        format: read.format,
        mapping: read.mapping,
        notices,
        rows: rows.map((r) => r.view),
        counts: {
          new: rows.filter((r) => r.view.status === 'new').length,
          duplicate: rows.filter((r) => r.view.status === 'duplicate').length,
          error: rows.filter((r) => r.view.status === 'error').length,
        },
      };
      this.pruneViews();
      this.previews.set(preview.previewId, { preview, rows, createdAt: this.clock.now() });
      return preview;
    },
    'import.commit': async ({ previewId }) => {
      const stored = this.previews.get(previewId);
      if (!stored) throw new ShotfarmError('not_found', 'This import preview has expired or was already imported; drop the file again.');
      const result = commitRows(this.db, this.clock, this.random, stored.rows);
      this.previews.delete(previewId);
      if (result.imported > 200) {
        // A big import: one "refetch" event rather than loading every new row back just to publish it.
        this.events.emit('jobs.bulkChanged', { count: result.imported });
        this.kick();
      } else if (result.imported > 0) this.changed(result.jobIds);
      return result;
    },

    'templates.list': async () => listLatestTemplates(this.db).map(toTemplateView),
    'templates.add': async ({ content, fileName }) => {
      const def = parseTemplateFile(content, fileName ?? 'template');
      return toTemplateView(saveTemplate(this.db, this.clock, def).template);
    },

    'instances.list': async () => listInstanceRows(this.db).map((r) => toInstanceView(this.db, r)),
    'instances.add': async (f) => {
      this.uniqueInstance(f, null);
      const id = randomId();
      insertInstance(this.db, id, f, this.clock.now());
      this.scheduler?.registry.refresh(id);
      const view = this.instanceView(id);
      this.events.emit('instance.changed', { instance: view });
      return view;
    },
    'instances.update': async ({ id: ref, ...f }) => {
      const id = this.resolveInstanceId(ref);
      this.uniqueInstance(f, id);
      updateInstance(this.db, id, f, this.clock.now());
      this.scheduler?.registry.refresh(id);
      const view = this.instanceView(id);
      this.events.emit('instance.changed', { instance: view });
      return view;
    },
    'instances.remove': async ({ id: ref }) => {
      const id = this.resolveInstanceId(ref);
      const view = this.instanceView(id);
      if (view.currentJobIds.length) {
        throw new ShotfarmError('conflict', `Workstation "${view.name}" is running ${view.currentJobIds.length} job(s); drain it first and remove it when idle.`);
      }
      const removed = deleteInstance(this.db, id);
      this.scheduler?.registry.refresh(id);
      this.events.emit('instance.removed', { id });
      return { removed };
    },
    'instances.setAdminState': async ({ id: ref, adminState }) => {
      const id = this.resolveInstanceId(ref);
      setAdminState(this.db, id, adminState, this.clock.now());
      this.scheduler?.registry.refresh(id);
      const view = this.instanceView(id);
      this.events.emit('instance.changed', { instance: view });
      return view;
    },

    'release.freeze': async (i) => freezeRelease(this.db, this.clock, i),
    'release.verify': async ({ path, root }) => {
      const r = await verifyManifest(path, root === undefined ? {} : { root });
      return { ...r, passed: verifyPassed(r) };
    },
    'hooks.list': async () => getHooks(this.db),
    'hooks.set': async ({ hooks }) => setHooks(this.db, this.clock, hooks),
    'hooks.deliveries': async (i) => listDeliveries(this.db, i),
    'export.runlog': async ({ path, ...filter }) => exportRunlog(this.dbFile, path, filter),
    'export.ledger': async ({ path, ...filter }) => exportLedger(this.dbFile, path, filter),
  };
}
