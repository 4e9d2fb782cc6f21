/**
 * An engine's two halves of talking to the other engines on its PostgreSQL database: the outbox
 * (what it changed, coalesced into one NOTIFY per window) and the inbox (what they changed: wake,
 * re-read, announce). The outbox tells the inbox which jobs it named, so the inbox's periodic
 * re-read does not announce this engine's own changes a second time.
 */
import type { Timers } from '../clock.js';
import type { Db } from '../store/database.js';
import type { PostgresOnly } from '../store/sql-db.js';
import { type FarmEars, NoticeInbox } from './notice-inbox.js';
import { NoticeOutbox } from './notice-outbox.js';

export interface FarmNoticesDeps {
  /** This engine's id, unique per Engine object: hearers skip their own notices by it. */
  from: string;
  db: Db;
  postgres: PostgresOnly;
  timers: Timers;
  log: (message: string) => void;
  ears: FarmEars;
  /** The inbox's re-read interval (tests). */
  rereadMs?: number;
}

export class FarmNotices {
  readonly outbox: NoticeOutbox;
  readonly inbox: NoticeInbox;

  constructor(d: FarmNoticesDeps) {
    this.inbox = new NoticeInbox({
      from: d.from,
      db: d.db,
      timers: d.timers,
      listen: (onNotice) => d.postgres.listen(onNotice),
      ears: d.ears,
      log: d.log,
      ...(d.rereadMs !== undefined ? { rereadMs: d.rereadMs } : {}),
    });
    this.outbox = new NoticeOutbox({
      from: d.from,
      timers: d.timers,
      send: (payload) => {
        try {
          d.postgres.notify(payload);
        } catch (err) {
          // A closed store: the other engines' re-read catches up.
          d.log(`telling the other engines failed: ${(err as Error).message}`);
        }
      },
      told: (ids) => this.inbox.told(ids),
    });
  }

  /** Sends what is pending and stops hearing (the engine is closing; the store closes next). */
  close(): void {
    this.inbox.stop();
    this.outbox.flush();
  }
}
