/**
 * The farm's lock in a PostgreSQL database. The data folder's OS lock (engine-lock.ts) keeps a
 * second engine out of the same folder on this host; a PostgreSQL farm's database can be reached
 * from any host, and several engines may run it at once (issue 27: workstations are leased among
 * them, lock/lease-manager.ts). So the engines hold a session-level advisory lock SHARED
 * (`pg_try_advisory_lock_shared`) on a connection of their own, and a move into the database
 * (`db migrate`) takes it EXCLUSIVE: it is refused while any engine runs the farm, and no engine
 * starts during the move.
 *
 * A server restart ends the session and so the lock: the holder takes it again at its next beat.
 */
import { ShotfarmError } from '../../../shared/errors.js';
import type { Db } from '../store/database.js';
import type { PostgresOnly } from '../store/sql-db.js';
import { liveEngine } from '../store/lease-store.js';
import { STALE_MS } from './farm-claim.js';
import { ENGINE_KINDS, databaseHeldSentence, type EngineKind, type LockRecord } from './lock-record.js';

/** An engine running the farm in the database, as a refusal names it (null when none is on record). */
function engineRecord(db: Db, dataDir: string): LockRecord | null {
  const e = liveEngine(db, STALE_MS);
  if (!e) return null;
  const kind = (ENGINE_KINDS as readonly string[]).includes(e.kind) ? (e.kind as EngineKind) : 'embedded';
  return { pid: e.pid, host: e.host, kind, since: e.started_at, dataDir, control: null, serveUrl: null };
}

export class DatabaseLock {
  private constructor(
    private readonly pg: PostgresOnly,
    private readonly shared: boolean,
  ) {}

  /**
   * Takes the farm's lock on a PostgreSQL store (null on SQLite: nothing to take), or refuses
   * (`conflict`). `shared`: an engine's (any number at once); else exclusive (a move into the database).
   */
  static take(db: Db, database: string, dataDir: string, shared = false): DatabaseLock | null {
    const pg = db.postgres;
    if (!pg) return null;
    if (pg.tryFarmLock(shared)) return new DatabaseLock(pg, shared);
    if (shared)
      throw new ShotfarmError(
        'conflict',
        `A farm is being moved into the database ${database} (db migrate); start this engine once the move is done.`,
        { details: { engineLock: { running: true } } },
      );
    const record = engineRecord(db, dataDir);
    throw new ShotfarmError('conflict', databaseHeldSentence(database, record), {
      details: { engineLock: record },
    });
  }

  /** Still held (taken again after a lost connection); false once it cannot be. Throws when the server cannot be reached. */
  refresh(): boolean {
    return this.pg.tryFarmLock(this.shared);
  }

  release(): void {
    try {
      this.pg.releaseFarmLock();
    } catch {
      // The connection is gone already, and the lock with it.
    }
  }
}
