/**
 * The farm's claim, kept in the database itself: a settings row (`engine.claim`) saying which
 * engine runs this store — pid, host, kind, since when, a random token, and which files it holds
 * (the database's and the lock file's identities) — written in an IMMEDIATE transaction and
 * refreshed by the holder every few seconds.
 *
 * Why beside the OS lock (engine-lock.ts): that lock sits on `engine.lock`, a file anyone who can
 * write the folder can delete or replace — after which a second engine locks a new file and both
 * dispatch the same jobs. The database cannot be swapped under a running engine the same way, and
 * any second engine must open it. So a taker also reads the claim, and refuses while its holder
 * lives:
 *  - a claim naming another database file (a copied or restored store) is not about this one;
 *  - on this host, when the taker holds the OS lock on the very lock file the claim names, the
 *    holder is gone (the kernel released its lock), whatever its pid is now;
 *  - a claim not refreshed for STALE_MS is gone (a killed engine elsewhere, a reused pid);
 *  - otherwise on this host its pid must be alive; on another host the fresh refresh is enough.
 * The holder re-checks at each refresh and, if a live engine took the claim meanwhile (it was
 * suspended past STALE_MS), stops dispatching rather than run the farm twice.
 *
 * Times here are wall-clock milliseconds from the system clock, not the engine's injected one:
 * they are compared across processes, and a test's manual clock is one process's fiction.
 */
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { hostname } from 'node:os';
import { z } from 'zod';
import { ShotfarmError } from '../../../shared/errors.js';
import type { Db } from '../store/database.js';
import { deleteSetting, readSetting, writeSetting } from '../store/settings-store.js';
import { postgresIdentity } from '../store/store-target.js';
import { ENGINE_KINDS, farmHeldSentence, type EngineKind, type LockRecord } from './lock-record.js';

const CLAIM_KEY = 'engine.claim';
/** How often the holder refreshes (and re-checks) its claim. */
export const CLAIM_BEAT_MS = 5_000;
/** A claim not refreshed for this long belongs to an engine that is gone. */
export const STALE_MS = 60_000;

const claimSchema = z.strictObject({
  pid: z.number().int().positive(),
  host: z.string().max(300),
  kind: z.enum(ENGINE_KINDS),
  since: z.number().int(),
  token: z.string().min(16).max(100),
  /** dev:ino of the database file claimed; on PostgreSQL `pg:<database>#<oid>` (storeIdentity). */
  dbFile: z.string().max(100),
  /** dev:ino of the `engine.lock` file whose OS lock the holder took. */
  lockFile: z.string().max(100).nullable(),
  beat: z.number().int(),
});
type Claim = z.infer<typeof claimSchema>;

const WORDS = {
  badJson:
    "The farm's claim row (settings engine.claim) is not valid JSON; it is rewritten by the next engine to start.",
  invalid: (issues: string) => `The farm's claim row (settings engine.claim) is invalid (${issues}).`,
};

/** What a taker knows about itself and the files it holds. */
export interface ClaimSide {
  pid: number;
  host: string;
  kind: EngineKind;
  dbFile: string;
  lockFile: string | null;
  now: () => number;
  /** Whether a pid on this host is alive (process.kill(pid, 0)). */
  pidAlive: (pid: number) => boolean;
}

/** A file's identity (dev:ino), or null when it cannot be stat-ed. Path calls only (see engine-lock.ts). */
export function fileIdentity(path: string): string | null {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/**
 * The store's identity in a claim: the SQLite file's dev:ino (a copied or restored file is another
 * store), or the PostgreSQL database's name and oid (a restored database is another one too).
 */
export function storeIdentity(db: Db, dbFile: string): string | null {
  return db.postgres ? postgresIdentity(db) : fileIdentity(dbFile);
}

/** Whether the claim's holder still runs this store (see the rules above). */
export function holderLives(c: Claim, me: ClaimSide): boolean {
  if (c.dbFile !== me.dbFile) return false;
  if (c.host === me.host && c.lockFile !== null && c.lockFile === me.lockFile) return false;
  if (me.now() - c.beat > STALE_MS) return false;
  return c.host === me.host ? me.pidAlive(c.pid) : true;
}

function readClaim(db: Db): Claim | null {
  try {
    return readSetting(db, CLAIM_KEY, claimSchema, WORDS);
  } catch {
    return null; // an unreadable claim is nobody's: the taker writes its own
  }
}

function asRecord(c: Claim, dataDir: string): LockRecord {
  return { pid: c.pid, host: c.host, kind: c.kind, since: c.since, dataDir, control: null, serveUrl: null };
}

export class FarmClaim {
  private lost = false;

  private constructor(
    private readonly db: Db,
    private readonly me: ClaimSide,
    private readonly token: string,
    private readonly since: number,
  ) {}

  /** Takes the claim, or refuses (a `conflict` with `engineLock` details: the CLI's exit code 10) while a live engine holds it. */
  static take(db: Db, dataDir: string, me: ClaimSide): FarmClaim {
    const claim = new FarmClaim(db, me, randomBytes(16).toString('hex'), me.now());
    db.transaction(() => {
      const held = readClaim(db);
      if (held && holderLives(held, me)) {
        const record = asRecord(held, dataDir);
        throw new ShotfarmError('conflict', farmHeldSentence(dataDir, record), { details: { engineLock: record } });
      }
      claim.write();
    });
    return claim;
  }

  private write(): void {
    const c: Claim = {
      pid: this.me.pid,
      host: this.me.host,
      kind: this.me.kind,
      since: this.since,
      token: this.token,
      dbFile: this.me.dbFile,
      lockFile: this.me.lockFile,
      beat: this.me.now(),
    };
    writeSetting(this.db, CLAIM_KEY, c, c.beat);
  }

  /**
   * Refreshes the claim; false once a live engine has taken it (then this engine must stop
   * dispatching). A missing or dead claim (a restored store, an edited row) is simply taken again.
   */
  refresh(): boolean {
    if (this.lost) return false;
    this.db.transaction(() => {
      const held = readClaim(this.db);
      if (held && held.token !== this.token && holderLives(held, this.me)) this.lost = true;
      else this.write();
    });
    return !this.lost;
  }

  /** Gives the claim up (only ours: a successor's claim is never removed). */
  release(): void {
    this.db.transaction(() => {
      const held = readClaim(this.db);
      if (held && held.token === this.token) deleteSetting(this.db, CLAIM_KEY);
    });
  }
}

/** This process's side of a claim on the store (`dbFile`'s, or the PostgreSQL database's), holding the OS lock on `lockFile`. */
export function claimSide(kind: EngineKind, store: Db, dbFile: string, lockFile: string): ClaimSide {
  const id = storeIdentity(store, dbFile);
  if (id === null) throw new ShotfarmError('storage', `The database ${dbFile} cannot be found to claim the farm.`);
  return {
    pid: process.pid,
    host: hostname(),
    kind,
    dbFile: id,
    lockFile: fileIdentity(lockFile),
    now: Date.now,
    pidAlive,
  };
}

/**
 * Who runs this store by its claim, as seen by a process that does not hold the farm (a one-shot
 * command): the holder's record when it lives, else null. Asked beside the OS lock, which a deleted
 * lock file no longer shows.
 */
export function claimHolder(db: Db, dataDir: string, dbFile: string): LockRecord | null {
  const id = storeIdentity(db, dbFile);
  const held = id === null ? null : readClaim(db);
  if (!held || id === null) return null;
  const me: ClaimSide = {
    pid: process.pid,
    host: hostname(),
    kind: held.kind,
    dbFile: id,
    lockFile: null,
    now: Date.now,
    pidAlive,
  };
  return holderLives(held, me) ? asRecord(held, dataDir) : null;
}

/** Who the claim names, alive or not (a refused PostgreSQL farm lock's sentence names the holder). */
export function claimRecord(db: Db, dataDir: string): LockRecord | null {
  const held = readClaim(db);
  return held ? asRecord(held, dataDir) : null;
}
