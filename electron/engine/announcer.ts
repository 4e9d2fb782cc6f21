/**
 * How "these jobs changed" leaves the engine: the one place that loads their views, hands finished
 * ones to the operator's hooks and emits the events. The scheduler, its runners and the API handlers
 * are given `announce`; none of them emits job events or notifies hooks itself.
 */
import type { JobView } from '../../shared/domain.js';
import { hookEventFor } from '../../shared/hooks.js';
import type { EventBus } from './event-bus.js';
import { type FarmTeller, TELL_NOBODY } from './notices/notice-outbox.js';
import type { Db } from './store/database.js';
import { jobRows, jobState } from './store/job-store.js';
import type { JobViews } from './views/job-views.js';

/**
 * Past this many jobs at once (an import, a bulk action) clients get one "refetch" event instead of
 * a `job.changed` per job: a page showing 100k rows would spend longer applying the events.
 */
export const BULK_THRESHOLD = 200;

/** What the scheduler and its runners are given: tell everyone these jobs' rows changed. */
export type Announce = (jobIds: readonly string[]) => void;

/** What hooks need of a changed job (the HookRunner); notify is idempotent per terminal transition. */
export interface JobNotifier {
  notify(job: JobView): unknown;
}

export class JobAnnouncer {
  /** Views built for jobs another engine changed (tests: none while nobody listens). */
  heardViews = 0;
  /** Views built for the farm's own changes (tests: only the ones hooks and followers need while nobody listens). */
  farmViews = 0;

  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly hooks: JobNotifier,
    /** Rows to views: the engine's one builder (views/job-views.ts), the same one `jobs.list` answers with. */
    private readonly toViews: JobViews,
    /**
     * The other engines on this database (notices/notice-outbox.ts): every change announced here —
     * the handlers' and the farm's alike — is told to them, so their farms wake and their UIs show it.
     */
    private readonly others: Pick<FarmTeller, 'jobs'> = TELL_NOBODY,
  ) {}

  /** Loads the changed jobs' views, notifies their hooks, emits the events; returns the views (the API answers with them). */
  announce(jobIds: readonly string[]): JobView[] {
    return this.publish(jobIds, jobIds);
  }

  /**
   * The farm's own changes (claims, starts, ends, requeues): as `announce` while a client or host
   * listens. With nobody listening — `shotfarm run`, a headless farm — a view is built only where
   * someone in the engine reads it: a finished job (its hooks), a job back in the queue (the
   * blocked-jobs keeper follows queued jobs); the others' states are read, not their views. A
   * claim, a start or a collect was most of the views a job's life built (five per job), each a
   * row, its open attempt and its wait read back for an event nobody received. The forecaster,
   * the other follower, also follows the workstations' changes, which every start and end makes.
   */
  announceFarm(jobIds: readonly string[]): void {
    const read = this.heard()
      ? jobIds
      : jobIds.filter((id) => {
          const state = jobState(this.db, id);
          return state !== null && (state === 'queued' || hookEventFor(state) !== null);
        });
    this.farmViews += this.publish(jobIds, read).length;
  }

  /**
   * Jobs that changed without finishing — just created (an import), or given a new attempt budget.
   * No hook listens for an unfinished job, so a large batch is announced without loading every row back.
   */
  announceUnfinished(jobIds: readonly string[]): void {
    if (jobIds.length <= BULK_THRESHOLD) return void this.announce(jobIds);
    this.events.emit('jobs.bulkChanged', { count: jobIds.length });
    this.others.jobs(jobIds);
  }

  /**
   * Jobs another engine changed (its notice named them): this engine's clients see them. Their
   * hooks are not run here — the engine that made the change runs them — nor is anyone told again.
   * With no client listening (an engine under `run`, no UI) nothing is read back: on a busy farm
   * every engine hears every other's changes, and building their views was most of the extra work
   * each engine added (test/bench/chaos-engines.bench.ts). Returns whether it announced them.
   */
  announceHeard(jobIds: readonly string[]): boolean {
    if (!this.heard()) return false;
    if (jobIds.length > BULK_THRESHOLD) {
      this.events.emit('jobs.bulkChanged', { count: jobIds.length });
      return true;
    }
    this.heardViews += jobIds.length;
    this.emit(this.toViews(jobRows(this.db, jobIds)));
    return true;
  }

  /**
   * The views of `read` (some or all of the `changed` jobs) to their hooks and followers; every
   * changed job to the other engines. Returns the views built.
   */
  private publish(changed: readonly string[], read: readonly string[]): JobView[] {
    const views = read.length > 0 ? this.toViews(jobRows(this.db, read)) : [];
    // Completed and finally failed jobs reach their hooks here, and only here.
    for (const job of views) this.hooks.notify(job);
    this.emit(views);
    this.others.jobs(changed);
    return views;
  }

  /** Whether a client, a host or the CLI follows job changes (the engine's own followers do not count). */
  private heard(): boolean {
    return this.events.audience('job.changed') || this.events.audience('jobs.bulkChanged');
  }

  private emit(views: readonly JobView[]): void {
    if (views.length > BULK_THRESHOLD) this.events.emit('jobs.bulkChanged', { count: views.length });
    else for (const job of views) this.events.emit('job.changed', { job });
  }
}
