/**
 * What this engine has to tell the other engines on its database, coalesced: every change made in
 * a window of WINDOW_MS goes out as one NOTIFY (farm-notice.ts). PostgreSQL takes a global lock at
 * the commit of every transaction that notified, which caps notifying commits at a few hundred per
 * second for the whole server: an engine sends at most one per window, however many jobs change.
 * The first change after a quiet window leaves once the current turn of the event loop is over
 * (with that turn's other changes), so a single import or bump reaches the other engines without
 * waiting out a window or a timer.
 *
 * Sent after the commit, not inside the committing transaction (pg_notify there is delivered only
 * if it commits, which we would like): the changes are announced once their transaction has
 * committed, many transactions (a tick's claims, an import's chunks, each bump) make one notice,
 * and pg_notify in each of them would make every one a notifying commit — the ceiling above. A
 * notice is thus about committed rows only; one lost with a crash between the commit and the
 * NOTIFY is caught by the hearers' periodic re-read (notice-inbox.ts).
 */
import type { Timers } from '../clock.js';
import { encodeNotice, type FarmNotice, JOBS_CAP } from './farm-notice.js';

/** What the rest of the engine tells the others (the announcer, the settings, the handlers). */
export interface FarmTeller {
  jobs(ids: readonly string[]): void;
  settings(): void;
  farm(): void;
  instance(id: string): void;
  templates(): void;
}

/** On SQLite (one engine per data folder) there is nobody to tell. */
export const TELL_NOBODY: FarmTeller = {
  jobs: () => undefined,
  settings: () => undefined,
  farm: () => undefined,
  instance: () => undefined,
  templates: () => undefined,
};

/** At most one NOTIFY per this many ms per engine (~100/s: well under the server's ceiling with several engines). */
export const WINDOW_MS = 10;

export interface NoticeOutboxDeps {
  /** This engine's id: hearers skip their own notices. */
  from: string;
  timers: Timers;
  /** Sends one payload (PostgresOnly.notify: returns at once). */
  send: (payload: string) => void;
  /** Jobs this engine told about (the hearers' re-read must not announce them again: notice-inbox.ts). */
  told?: (ids: readonly string[]) => void;
  now?: () => number;
  /**
   * Runs fn once the current turn of the event loop is over (default setImmediate: after this
   * turn's other changes, before the next timers), for the first notice after a quiet spell.
   */
  soon?: (fn: () => void) => void;
}

export class NoticeOutbox implements FarmTeller {
  /** NOTIFYs sent (tests, the bench). */
  sent = 0;
  private pending: FarmNotice | null = null;
  private readonly jobIds = new Set<string>();
  private readonly instanceIds = new Set<string>();
  private timer: unknown = null;
  private lastSentAt = Number.NEGATIVE_INFINITY;
  private readonly now: () => number;
  private readonly soon: (fn: () => void) => void;

  constructor(private readonly d: NoticeOutboxDeps) {
    this.now = d.now ?? (() => performance.now());
    this.soon = d.soon ?? ((fn) => void setImmediate(fn));
  }

  jobs(ids: readonly string[]): void {
    if (ids.length === 0) return;
    const n = this.open();
    if (!n.reread) for (const id of ids) this.jobIds.add(id);
    // Past the cap the ids are not kept: the notice says "re-read".
    if (this.jobIds.size > JOBS_CAP) {
      n.reread = true;
      this.jobIds.clear();
    }
    this.d.told?.(ids);
  }

  settings(): void {
    this.open().settings = true;
  }

  farm(): void {
    this.open().farm = true;
  }

  instance(id: string): void {
    this.open();
    this.instanceIds.add(id);
  }

  templates(): void {
    this.open().templates = true;
  }

  /** Sends what is pending now (the engine closing: a one-shot command's change must still be heard). */
  flush(): void {
    if (this.timer !== null) this.d.timers.clearTimeout(this.timer);
    this.timer = null;
    const n = this.pending;
    if (!n) return;
    this.pending = null;
    n.jobs = [...this.jobIds];
    n.instances = [...this.instanceIds];
    this.jobIds.clear();
    this.instanceIds.clear();
    this.lastSentAt = this.now();
    this.sent++;
    this.d.send(encodeNotice(n));
  }

  private open(): FarmNotice {
    if (this.pending) return this.pending;
    this.pending = {
      from: this.d.from,
      jobs: [],
      reread: false,
      settings: false,
      farm: false,
      instances: [],
      allInstances: false,
      templates: false,
    };
    const wait = this.lastSentAt + WINDOW_MS - this.now();
    if (wait <= 0) {
      // The window is open: this turn's changes go together, without waiting for a timer.
      const mine = this.pending;
      this.soon(() => {
        if (this.pending === mine) this.flush();
      });
      return this.pending;
    }
    this.timer = this.d.timers.setTimeout(() => {
      this.timer = null;
      this.flush();
    }, wait);
    return this.pending;
  }
}
