/**
 * Every statement on `engines` and `workstation_leases` (migration 0016): the engines sharing one
 * PostgreSQL farm and which of them drives each workstation (issue 27; lock/lease-manager.ts).
 *
 * Times here are the database server's clock, in epoch milliseconds: engines on several hosts
 * compare expiries, and one clock for all of them means a skewed host cannot keep a lease alive or
 * take one early. These statements are PostgreSQL's (`clock_timestamp()`); on SQLite a single
 * engine runs the farm and never calls them — except the pin, which both stores take.
 *
 * Every take and every fence runs in a store transaction, which on PostgreSQL holds the farm's
 * write lock (postgres-db.ts): a take and an attempt's fenced write never interleave, so a write
 * whose epoch check passed is committed before any other engine can take that workstation.
 */
import type { Db } from './database.js';
import { all, one, run } from './statements.js';

/** The database server's time now, in epoch milliseconds (the statement's own moment, not the transaction's start). */
const NOW_MS = 'CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)';

export interface EngineIdentity {
  id: string;
  host: string;
  pid: number;
  version: string;
  kind: string;
}

export interface EngineRow extends EngineIdentity {
  started_at: number;
  renewed_at: number;
  stopped_at: number | null;
  /** Workstations whose lease it holds now (unexpired). */
  held: number;
  /** The server's time when read (to say how long ago it renewed). */
  now: number;
}

export interface LeaseRow {
  instance_id: string;
  engine_id: string | null;
  epoch: number;
  expires_at: number;
  pinned_engine: string | null;
}

/** How long a stopped or vanished engine's row is kept for `farm engines` (then pruned at the next start). */
const KEEP_MS = 24 * 3600_000;

/** Writes this engine's row (started and renewed now) and forgets engines gone for a day. */
export function registerEngine(db: Db, e: EngineIdentity): void {
  db.transaction(() => {
    run(db, `DELETE FROM engines WHERE COALESCE(stopped_at, renewed_at) < ${NOW_MS} - @keep`, { keep: KEEP_MS });
    run(
      db,
      `INSERT INTO engines (id, host, pid, version, kind, started_at, renewed_at) VALUES (@id, @host, @pid, @version, @kind, ${NOW_MS}, ${NOW_MS})
      ON CONFLICT (id) DO UPDATE SET renewed_at = excluded.renewed_at, stopped_at = NULL`,
      { ...e },
    );
  });
}

/**
 * The engine that most recently renewed within `withinMs` and is not stopped, or null — also when
 * the database has no farm yet (a move's destination: no such table).
 */
export function liveEngine(db: Db, withinMs: number): (EngineIdentity & { started_at: number }) | null {
  try {
    return (
      one<EngineIdentity & { started_at: number }>(
        db,
        `SELECT id, host, pid, version, kind, started_at FROM engines WHERE stopped_at IS NULL AND renewed_at >= ${NOW_MS} - @within
        ORDER BY renewed_at DESC LIMIT 1`,
        { within: withinMs },
      ) ?? null
    );
  } catch {
    return null;
  }
}

/** The other engines on record as running on `host` (not stopped): a starting engine checks their pids. */
export function runningEnginesOn(db: Db, host: string, exceptId: string): { id: string; pid: number }[] {
  return all<{ id: string; pid: number }>(
    db,
    'SELECT id, pid FROM engines WHERE host = ? AND id <> ? AND stopped_at IS NULL',
    host,
    exceptId,
  );
}

/** Renews this engine's row; false when it is marked stopped (then it must not run the farm). */
export function renewEngine(db: Db, id: string): boolean {
  return run(db, `UPDATE engines SET renewed_at = ${NOW_MS} WHERE id = ? AND stopped_at IS NULL`, id).changes === 1;
}

/** The engines renewed within `leaseMs` and not stopped: those a fair share is computed over. */
export function liveEngineIds(db: Db, leaseMs: number): string[] {
  return all<{ id: string }>(
    db,
    `SELECT id FROM engines WHERE stopped_at IS NULL AND renewed_at >= ${NOW_MS} - @lease ORDER BY started_at, id`,
    { lease: leaseMs },
  ).map((r) => r.id);
}

/**
 * Extends every lease this engine holds by `leaseMs` from now; the workstations and epochs it
 * still holds. One whose epoch moved on (another engine took it) is not this engine's any more.
 */
export function renewLeases(db: Db, engineId: string, leaseMs: number): { instance_id: string; epoch: number }[] {
  return all<{ instance_id: string; epoch: number }>(
    db,
    `UPDATE workstation_leases SET expires_at = ${NOW_MS} + @lease WHERE engine_id = @engine RETURNING instance_id, epoch`,
    { engine: engineId, lease: leaseMs },
  );
}

/** Every lease row (pins included), with the server's time. */
export function leaseRows(db: Db): { rows: LeaseRow[]; now: number } {
  const rows = all<LeaseRow>(
    db,
    'SELECT instance_id, engine_id, epoch, expires_at, pinned_engine FROM workstation_leases ORDER BY instance_id',
  );
  const now = one<{ now: number }>(db, `SELECT ${NOW_MS} AS now`)?.now ?? 0;
  return { rows, now };
}

/**
 * Takes a workstation's lease for this engine when it is free, expired or already this engine's,
 * and not pinned to another engine: its new epoch (bumped by every take, atomically), or null when
 * another engine holds it or it is pinned elsewhere.
 */
export function takeLease(
  db: Db,
  t: { instanceId: string; engineId: string; host: string; leaseMs: number },
): number | null {
  return (
    one<{ epoch: number }>(
      db,
      `INSERT INTO workstation_leases (instance_id, engine_id, epoch, expires_at) VALUES (@instance, @engine, 1, ${NOW_MS} + @lease)
      ON CONFLICT (instance_id) DO UPDATE SET engine_id = excluded.engine_id, epoch = workstation_leases.epoch + 1, expires_at = excluded.expires_at
      WHERE (workstation_leases.engine_id IS NULL OR workstation_leases.engine_id = excluded.engine_id OR workstation_leases.expires_at < ${NOW_MS})
        AND (workstation_leases.pinned_engine IS NULL OR workstation_leases.pinned_engine = @engine OR workstation_leases.pinned_engine = @host)
      RETURNING epoch`,
      { instance: t.instanceId, engine: t.engineId, host: t.host, lease: t.leaseMs },
    )?.epoch ?? null
  );
}

/** Hands one workstation over at once (expired now), if this engine still holds it. */
export function releaseLease(db: Db, instanceId: string, engineId: string): boolean {
  return (
    run(
      db,
      'UPDATE workstation_leases SET engine_id = NULL, expires_at = 0 WHERE instance_id = ? AND engine_id = ?',
      instanceId,
      engineId,
    ).changes === 1
  );
}

/** A graceful stop: every lease of this engine handed over at once, and its row marked stopped. */
export function stopEngine(db: Db, engineId: string): void {
  db.transaction(() => {
    run(db, 'UPDATE workstation_leases SET engine_id = NULL, expires_at = 0 WHERE engine_id = ?', engineId);
    run(db, `UPDATE engines SET stopped_at = ${NOW_MS}, renewed_at = ${NOW_MS} WHERE id = ?`, engineId);
  });
}

/**
 * The fence (inside the write's own transaction): whether this engine still holds the
 * workstation's lease under the epoch the attempt was started with. A take by another engine
 * bumps the epoch, so a write that passed here cannot follow one.
 */
export function leaseHeld(db: Db, instanceId: string, engineId: string, epoch: number): boolean {
  return (
    one(
      db,
      'SELECT 1 AS ok FROM workstation_leases WHERE instance_id = ? AND engine_id = ? AND epoch = ?',
      instanceId,
      engineId,
      epoch,
    ) !== undefined
  );
}

/** Pins a workstation to an engine (its id or host), or unpins it (null). Both stores. */
export function pinWorkstation(db: Db, instanceId: string, engine: string | null): void {
  run(
    db,
    `INSERT INTO workstation_leases (instance_id, pinned_engine) VALUES (?, ?)
    ON CONFLICT (instance_id) DO UPDATE SET pinned_engine = excluded.pinned_engine`,
    instanceId,
    engine,
  );
}

/** Every engine on record (live, stopped or vanished within a day), oldest first, with the workstations it holds now. */
export function engineRows(db: Db): EngineRow[] {
  return all<EngineRow>(
    db,
    `SELECT e.id, e.host, e.pid, e.version, e.kind, e.started_at, e.renewed_at, e.stopped_at, ${NOW_MS} AS now,
      (SELECT COUNT(*) FROM workstation_leases l WHERE l.engine_id = e.id AND l.expires_at >= ${NOW_MS}) AS held
    FROM engines e ORDER BY e.started_at, e.id`,
  );
}

/** Which engine drives each leased workstation now (unexpired leases), with its pin and the reservation that engine keeps there. */
export function workstationDrivers(db: Db): {
  instance_id: string;
  engine_id: string | null;
  host: string | null;
  pinned_engine: string | null;
  reserved_job: string | null;
  reserved_priority: number | null;
}[] {
  return all(
    db,
    `SELECT l.instance_id, CASE WHEN l.expires_at >= ${NOW_MS} THEN l.engine_id END AS engine_id,
      CASE WHEN l.expires_at >= ${NOW_MS} THEN e.host END AS host, l.pinned_engine,
      CASE WHEN l.expires_at >= ${NOW_MS} AND l.reserved_by = l.engine_id THEN l.reserved_job END AS reserved_job,
      CASE WHEN l.expires_at >= ${NOW_MS} AND l.reserved_by = l.engine_id THEN l.reserved_priority END AS reserved_priority
    FROM workstation_leases l LEFT JOIN engines e ON e.id = l.engine_id ORDER BY l.instance_id`,
  );
}

/**
 * Records a new reservation of this engine (as writeReservation) unless another engine already
 * keeps a workstation free for the same job — a live lease's reservation, made by the engine that
 * holds it: then nothing is written and false says so, so the farm holds back at most one GPU per
 * starved job. One transaction, which on PostgreSQL holds the farm's write lock: two engines
 * deciding at the same moment cannot both pass the check.
 */
export function keepReservation(
  db: Db,
  t: { instanceId: string; epoch: number; engineId: string },
  r: { jobId: string; priority: number },
): boolean {
  return db.transaction(() => {
    const elsewhere = one(
      db,
      `SELECT 1 AS kept FROM workstation_leases WHERE reserved_job = @job AND reserved_by = engine_id
        AND engine_id <> @engine AND expires_at >= ${NOW_MS} LIMIT 1`,
      { job: r.jobId, engine: t.engineId },
    );
    if (elsewhere) return false;
    writeReservation(db, t.instanceId, t.epoch, r);
    return true;
  });
}

/**
 * The reservation this engine keeps on a workstation it leases under `epoch` (null: none), for the
 * other engines' `jobs why` (migration 0021). Stamped with the lease's engine, so a reservation
 * left by an engine that lost the lease is not read as the new driver's.
 */
export function writeReservation(
  db: Db,
  instanceId: string,
  epoch: number,
  r: { jobId: string; priority: number } | null,
): void {
  run(
    db,
    `UPDATE workstation_leases SET reserved_job = @job, reserved_priority = @priority, reserved_by = engine_id
    WHERE instance_id = @instance AND epoch = @epoch`,
    { job: r?.jobId ?? null, priority: r?.priority ?? null, instance: instanceId, epoch },
  );
}
