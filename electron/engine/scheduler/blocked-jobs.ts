/**
 * Keeps the durable "blocked" mark of queued jobs true (jobs.blocked / wait_reason): a job that no
 * registered workstation could ever take says so in the store, in `status` and in its events, and
 * stops saying so when a workstation that can take it appears. Written only when the answer changes
 * — never once per dispatch pass — and looked at:
 *  - for every queued job, whenever what could block one changes (FarmFacts.fingerprint: a
 *    workstation added, edited or removed, a node list loaded, a VRAM total learnt), a chunk per turn
 *    — a full pass begun at most once per interval: at a farm's start 200 workstations come up one
 *    after the other, and restarting at each (the facts alone are ~8 ms at 200) held the loop for
 *    the whole burst; a change within the interval restarts it once, at the interval's end;
 *  - for new jobs (imports here or by another process: the store is looked at once per interval);
 *  - for jobs announced back in the queue (released, retried, requeued, their dependency done);
 *  - and, a few chunks per interval, round the whole queue, for what another process changed.
 * It decides nothing about dispatch: the dispatcher never reads the mark.
 */
import type { Announce } from '../announcer.js';
import type { Clock, Timers } from '../clock.js';
import type { EventBus } from '../event-bus.js';
import { inTransaction, type Db } from '../store/database.js';
import type { JobRow } from '../store/job-rows.js';
import {
  jobRow,
  newestJobRowid,
  QUEUE_START,
  queueCursorOf,
  queuedAfter,
  queuedByRowid,
  setBlocked,
  type QueueCursor,
  type QueuedJob,
} from '../store/job-store.js';
import type { FarmFacts } from '../views/farm-facts.js';
import { explainer, isBlockedWait } from '../views/wait-explainer.js';
import type { TemplateCache } from '../templates/template-cache.js';

/**
 * Rows looked at per turn of the event loop. Explaining a job against every workstation costs
 * ~20 µs, so a chunk is a few milliseconds: a prompt that ends meanwhile waits no longer than that
 * for the dispatcher (a whole pass over 100k queued jobs runs as 800 such turns).
 */
const CHUNK = 125;
/**
 * A follower, not an audience (event-bus.ts): jobs another engine changed reach this one's bus only
 * while a client listens — the engine that changed them rechecks them, and the mark is in the store.
 */
const INTERNAL = { internal: true };
/** The background sweep's chunks per probe interval: 500 jobs, a 100k queue in ~7 minutes at 2 s. */
const SWEEP_CHUNKS = 4;
/**
 * While a full pass walks the queue, the look for rows stored since (another process's import) is
 * taken every this many steps, and once as the pass ends: the pass meets most of them anyway, and
 * on PostgreSQL each look is a round trip — 800 of them, ~0.6 s, over a pass of 100k queued jobs.
 */
const NEW_ROWS_EVERY_IN_PASS = 8;

export interface BlockedJobsDeps {
  db: Db;
  clock: Clock;
  timers: Timers;
  events: EventBus;
  /** How often the store is looked at for jobs queued by another process (the probe interval, read each time: settings may change it). */
  intervalMs: () => number;
  facts: () => FarmFacts;
  templates: TemplateCache;
  announce: Announce;
  /** New queued rows were found (possibly imported by another process): the dispatcher should look. */
  kick: () => void;
  /** Runs one step, keeping what it throws (a locked or full database) from ending the process. */
  guard: (what: string, step: () => void) => void;
}

export class BlockedJobs {
  private fingerprint: string | null = null;
  /** Where a full pass over the queue has got to; null when none is due. */
  private passFrom: QueueCursor | null = QUEUE_START;
  private sweepFrom: QueueCursor = QUEUE_START;
  /** Sweep chunks still to take in this interval. */
  private sweepDue = 0;
  private newestSeen = 0;
  /** When the latest full pass began (clock ms), and the timer of the one a change within the interval asks for. */
  private passBegunAt: number | null = null;
  private passTimer: unknown = null;
  /**
   * Full passes begun, steps taken, looks for new rows taken, and rows looked at in this run, by why
   * they were read: new rows, a full pass, the sweep, jobs announced back in the queue (tests, benchmarks).
   */
  readonly stats = { passes: 0, steps: 0, newRowLooks: 0, rows: { new: 0, pass: 0, sweep: 0, back: 0 } };
  private readonly recheck = new Set<string>();
  private timer: unknown = null;
  private soonQueued = false;
  private running = false;
  /** Our own announcements come back as events; they must not queue more work. */
  private announcing = false;
  private offs: (() => void)[] = [];

  constructor(private readonly d: BlockedJobsDeps) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    // Everything once at start (the farm may have changed while Shotfarm was closed), then new rows only.
    this.newestSeen = newestJobRowid(this.d.db);
    this.beginPass();
    this.offs = [
      this.d.events.on(
        'job.changed',
        ({ job }) => {
          if (this.announcing || job.state !== 'queued') return;
          this.recheck.add(job.id);
          this.soon();
        },
        INTERNAL,
      ),
      this.d.events.on(
        'jobs.bulkChanged',
        () => {
          if (this.announcing) return;
          this.beginPass();
          this.soon();
        },
        INTERNAL,
      ),
    ];
    this.tick();
  }

  stop(): void {
    this.running = false;
    this.d.timers.clearTimeout(this.timer);
    this.d.timers.clearTimeout(this.passTimer);
    this.passTimer = null;
    for (const off of this.offs) off();
    this.offs = [];
  }

  /** Something may have changed (the farm's facts, new jobs): look once, soon, however many ask. */
  soon(): void {
    if (this.soonQueued || !this.running) return;
    this.soonQueued = true;
    setImmediate(() => {
      this.soonQueued = false;
      this.d.guard('looking for blocked jobs', () => this.step());
    });
  }

  private beginPass(): void {
    this.passFrom = QUEUE_START;
    this.passBegunAt = this.d.clock.now();
    this.stats.passes++;
    // The pass meets every queued job stored so far, so they are not new rows as well: an import's
    // jobs (one bulk change, which begins a pass) were each read and explained twice (100k: seconds
    // of the engine's CPU). Read outside a transaction only, where every row counted is committed.
    if (this.d.db.inTransaction) return;
    const newest = newestJobRowid(this.d.db);
    if (newest <= this.newestSeen) return;
    this.newestSeen = newest;
    // What finding them as new rows would have done: another process's import wakes the dispatcher.
    this.d.kick();
  }

  /**
   * The facts changed: a full pass now, unless one began within the interval — then the pass
   * going on carries on with the new facts and one more begins at the interval's end (however
   * many changes come meanwhile), so no job is left judged on facts older than one interval. A
   * pass that has not read its first chunk yet meets every queued job with the new facts: nothing
   * to restart (an import's pass, begun as its jobs were announced, whose first step is where the
   * keeper sees the facts changed since its last look — a second pass over 100k jobs, ~2.5 s of CPU).
   */
  private factsChanged(): void {
    if (this.passFrom === QUEUE_START) return;
    const since = this.passBegunAt === null ? Number.POSITIVE_INFINITY : this.d.clock.now() - this.passBegunAt;
    const interval = this.d.intervalMs();
    if (since >= interval) return this.beginPass();
    if (this.passTimer !== null) return;
    this.passTimer = this.d.timers.setTimeout(() => {
      this.passTimer = null;
      if (!this.running) return;
      this.beginPass();
      this.soon();
    }, interval - since);
  }

  private tick(): void {
    this.sweepDue = SWEEP_CHUNKS;
    this.d.guard('looking for blocked jobs', () => this.step());
    if (this.running) this.timer = this.d.timers.setTimeout(() => this.tick(), this.d.intervalMs());
  }

  private step(): void {
    if (!this.running) return;
    this.stats.steps++;
    const { db } = this.d;
    const facts = this.d.facts();
    if (facts.fingerprint !== this.fingerprint) {
      // The first facts of the run: the pass begun at start is the one they need.
      if (this.fingerprint !== null) this.factsChanged();
      this.fingerprint = facts.fingerprint;
    }
    const rows = new Map<string, QueuedJob | JobRow>();
    let fresh: QueuedJob[] = [];
    if (this.passFrom === null || this.stats.steps % NEW_ROWS_EVERY_IN_PASS === 0) {
      this.stats.newRowLooks++;
      fresh = queuedByRowid(db, this.newestSeen, CHUNK);
    }
    for (const r of fresh) rows.set(r.id, r);
    // Jobs a CLI in another process imported while this farm runs: nothing else would wake it.
    if (fresh.length) this.d.kick();
    this.stats.rows.new += fresh.length;
    for (const id of this.recheck) {
      const r = jobRow(db, id);
      if (r?.state !== 'queued') continue;
      rows.set(id, r);
      this.stats.rows.back++;
    }
    this.recheck.clear();
    let more = fresh.length === CHUNK;
    if (this.passFrom !== null || this.sweepDue > 0) {
      // Queued rows only (jobs_queued_age): a farm's finished history is never read.
      const chunk = queuedAfter(db, this.passFrom ?? this.sweepFrom, CHUNK);
      for (const r of chunk) rows.set(r.id, r);
      if (this.passFrom !== null) this.stats.rows.pass += chunk.length;
      else this.stats.rows.sweep += chunk.length;
      const last = chunk[chunk.length - 1];
      const next = chunk.length === CHUNK && last ? queueCursorOf(last) : null;
      if (this.passFrom !== null) {
        this.passFrom = next;
        // Every step of a pass asks for the next; after its last, one more: the look for new rows it skipped.
        more = true;
      } else {
        this.sweepFrom = next ?? QUEUE_START;
        // Round the queue once, a few chunks per interval; at its end, the next interval starts over.
        this.sweepDue = next === null ? 0 : this.sweepDue - 1;
        more ||= this.sweepDue > 0;
      }
    }
    this.apply([...rows.values()], facts);
    // Only once they are looked at: a write that failed leaves them new for the next step.
    if (fresh.length) this.newestSeen = (fresh[fresh.length - 1] as { row_n: number }).row_n;
    if (more) this.soon();
  }

  private apply(rows: readonly (QueuedJob | JobRow)[], facts: FarmFacts): void {
    const explain = explainer(facts, this.d.templates);
    const changes: { id: string; reason: string | null }[] = [];
    for (const r of rows) {
      const wait = explain(r);
      const reason = isBlockedWait(wait, facts, r) ? wait.summary : null;
      if (r.blocked !== (reason === null ? 0 : 1) || (reason !== null && r.wait_reason !== reason))
        changes.push({ id: r.id, reason });
    }
    if (changes.length === 0) return;
    const now = this.d.clock.now();
    const written = inTransaction(this.d.db, () =>
      changes.filter((c) => setBlocked(this.d.db, c.id, c.reason, now)).map((c) => c.id),
    );
    if (written.length === 0) return;
    this.announcing = true;
    try {
      this.d.announce(written);
    } finally {
      this.announcing = false;
    }
  }
}
