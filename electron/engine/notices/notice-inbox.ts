/**
 * Hearing the other engines on this engine's PostgreSQL database: each notice (farm-notice.ts) from
 * another engine wakes this engine's scheduler at once — an import or a bump made through any
 * engine starts on an idle GPU within milliseconds — and is passed on as it says (the named jobs
 * announced to this engine's own event bus, so its UI and WebSocket clients see them; the settings
 * and farm state re-read; workstations reloaded). Its own notices come back to it and are skipped.
 *
 * NOTIFY is not durable: a notice sent while this engine's listening connection was down is gone,
 * and so is one its sender never sent (it crashed between its commit and its NOTIFY). Two nets
 * stand behind the notices:
 * - a reconnect of the listening connection says "missed" (notice-link.ts): everything is re-read;
 * - every REREAD_MS, the newest job_events and job_order_changes ids are compared with the last
 *   seen; the jobs changed since that no notice named (heard, or told by this engine itself) are
 *   announced, and the scheduler is kicked. One indexed MAX per table when nothing moved. (A job
 *   named by a notice in the same interval is not announced again, so an unheard change of a job
 *   that also had a heard one within those few seconds waits for the job's next change.)
 * (The settings and farm state have their own net: LiveSettings compares their rows at every probe.)
 */
import type { NoticeMessage } from '../store/postgres/bridge-protocol.js';
import type { Timers } from '../clock.js';
import { jobsChangedBetween, lastStateChangeId } from '../job-state.js';
import type { Db } from '../store/database.js';
import { jobsReorderedBetween, lastOrderChangeId } from '../store/job-store.js';
import { type FarmNotice, parseNotice } from './farm-notice.js';

/** What a notice makes this engine do (engine.ts wires them to its scheduler, announcer and settings). */
export interface FarmEars {
  /** Something may be dispatchable now. */
  kick(): void;
  /** These jobs changed: tell this engine's event bus (no hooks: the engine that made the change runs them). */
  jobs(ids: readonly string[]): void;
  /** Too many jobs changed to name (or notices were lost): clients refetch. */
  reread(): void;
  /** The settings or the farm state changed: re-read and apply them. */
  settings(): void;
  farm(): void;
  instances(ids: readonly string[]): void;
  /** Too many workstations changed to name (or notices were lost): reload them all. */
  allInstances(): void;
}

export interface NoticeInboxDeps {
  /** This engine's id (its own notices are skipped). */
  from: string;
  db: Db;
  timers: Timers;
  listen: (onNotice: (m: NoticeMessage) => void) => boolean;
  ears: FarmEars;
  log: (message: string) => void;
  /** How often the re-read runs (default REREAD_MS). */
  rereadMs?: number;
}

export const REREAD_MS = 3_000;
/** More jobs than this changed unnamed since the last re-read: one "refetch" instead of naming them. */
const REREAD_NAMED = 1_000;

export interface InboxCounts {
  /** Notices heard from other engines. */
  heard: number;
  /** This engine's own, heard back and skipped. */
  own: number;
  /** Payloads on the channel that were not notices. */
  unreadable: number;
  /** "Notices may have been missed" from the listening connection. */
  missed: number;
  /** Jobs the periodic re-read found changed that no notice named. */
  caught: number;
  /** Periodic re-reads run. */
  rereads: number;
}

export class NoticeInbox {
  readonly counts: InboxCounts = { heard: 0, own: 0, unreadable: 0, missed: 0, caught: 0, rereads: 0 };
  /** Jobs named by a notice (heard or told) since the last re-read: not announced again by it. */
  private readonly named = new Set<string>();
  private marks = { events: 0, orders: 0 };
  private timer: unknown = null;
  private running = false;
  /** The first LISTEN after start has nothing to catch up (the marks were read just before it). */
  private listened = false;

  constructor(private readonly d: NoticeInboxDeps) {}

  /** Starts listening and the periodic re-read. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.guard('reading where the jobs stand', () => {
      this.marks = this.readMarks();
    });
    try {
      if (!this.d.listen((m) => this.onMessage(m)))
        this.d.log('listening for the other engines failed; trying again (the periodic re-read stands in meanwhile)');
    } catch (err) {
      this.d.log(`listening for the other engines failed: ${(err as Error).message}`);
    }
    this.arm();
  }

  stop(): void {
    this.running = false;
    this.d.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  /** This engine told the others about these jobs: the re-read must not announce them again. */
  told(ids: readonly string[]): void {
    if (this.running) for (const id of ids) this.named.add(id);
  }

  private onMessage(m: NoticeMessage): void {
    if (!this.running) return;
    if (m.kind === 'missed') {
      // A loss is caught up once listening again (what was said in between is gone either way).
      if (m.why === 'lost') return;
      if (!this.listened) {
        this.listened = true;
        return;
      }
      this.counts.missed++;
      this.guard('re-reading after missed notices', () => this.everything());
      return;
    }
    const n = parseNotice(m.payload);
    if (!n) {
      this.counts.unreadable++;
      return;
    }
    if (n.from === this.d.from) {
      this.counts.own++;
      return;
    }
    this.counts.heard++;
    this.guard('passing on a notice from another engine', () => this.hear(n));
  }

  private hear(n: FarmNotice): void {
    const { ears } = this.d;
    // The wake-up first: the dispatcher's pass runs on the next turn, after the rest is passed on.
    ears.kick();
    if (n.settings) ears.settings();
    if (n.farm) ears.farm();
    if (n.allInstances) ears.allInstances();
    else if (n.instances.length) ears.instances(n.instances);
    if (n.reread) ears.reread();
    else if (n.jobs.length) {
      for (const id of n.jobs) this.named.add(id);
      // After the pass the kick queued (setImmediate runs in order): reading the jobs' views back
      // is a few round trips that an idle GPU must not wait for.
      setImmediate(() => this.guard('announcing the jobs another engine changed', () => ears.jobs(n.jobs)));
    }
  }

  /** Everything may have changed unheard: kick, re-read the settings and farm state, refetch. */
  private everything(): void {
    const { ears } = this.d;
    ears.kick();
    ears.settings();
    ears.farm();
    ears.allInstances();
    ears.reread();
    this.marks = this.readMarks();
    this.named.clear();
  }

  private arm(): void {
    if (!this.running) return;
    this.timer = this.d.timers.setTimeout(() => {
      this.timer = null;
      if (!this.running) return;
      this.guard('re-reading the jobs other engines changed', () => this.reread());
      this.arm();
    }, this.d.rereadMs ?? REREAD_MS);
  }

  /** The periodic net: jobs changed since the last look that no notice named are announced now. */
  private reread(): void {
    this.counts.rereads++;
    const now = this.readMarks();
    const was = this.marks;
    if (now.events === was.events && now.orders === was.orders) {
      this.named.clear();
      return;
    }
    const { db } = this.d;
    const changed = new Set([
      ...jobsChangedBetween(db, was.events, now.events, REREAD_NAMED + 1),
      ...jobsReorderedBetween(db, was.orders, now.orders, REREAD_NAMED + 1),
    ]);
    const unnamed = [...changed].filter((id) => !this.named.has(id));
    this.marks = now;
    this.named.clear();
    if (unnamed.length === 0) return;
    this.counts.caught += unnamed.length;
    this.d.ears.kick();
    if (changed.size > REREAD_NAMED) this.d.ears.reread();
    else this.d.ears.jobs(unnamed);
  }

  private readMarks(): { events: number; orders: number } {
    return { events: lastStateChangeId(this.d.db), orders: lastOrderChangeId(this.d.db) };
  }

  /** A store that cannot be read (a server gone) is said, never thrown into the event loop: the next net catches up. */
  private guard(what: string, step: () => void): void {
    try {
      step();
    } catch (err) {
      this.d.log(`${what} failed: ${(err as Error).message}`);
    }
  }
}
