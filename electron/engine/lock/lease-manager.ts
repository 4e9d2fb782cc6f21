/**
 * Several engines on one PostgreSQL farm (issue 27): workstations — the LAN ComfyUI instances and
 * the RunPod endpoints alike — are leased, not locked. Each engine registers its row in `engines`
 * and, every third of `lease_s`, in one store transaction: renews its row and its leases; hands
 * over the workstations pinned to another engine and those above its fair share (per kind:
 * ceil(workstations of that kind ÷ live engines), counting those pinned to it; idle ones first) so
 * a new engine gets its part; and takes free or expired leases up to its share, plus those pinned
 * to it.
 * Every take bumps the lease's epoch atomically (store/lease-store.ts takeLease), and every write an
 * attempt makes is fenced on the epoch it started under (pools/attempt/lease-fence.ts).
 *
 * What a gained or lost lease means for the farm is the scheduler's (`gained`: recover every
 * attempt left open there, as at a restart; `lost`: stop following, send nothing more). A graceful
 * stop hands every lease over at once (expired now). An engine that stops renewing (killed, frozen,
 * cut off from the database) loses its workstations to the others once its leases expire.
 *
 * On SQLite there is none of this: one engine per data folder (engine-lock.ts).
 */
import { hostname } from 'node:os';
import type { Timers } from '../clock.js';
import { randomId } from '../ids.js';
import { LeaseLost, type FarmLeases } from '../pools/attempt/lease-fence.js';
import type { Db } from '../store/database.js';
import { pidAlive } from './farm-claim.js';
import {
  type EngineIdentity,
  type LeaseRow,
  leaseHeld,
  leaseRows,
  liveEngineIds,
  registerEngine,
  releaseLease,
  runningEnginesOn,
  renewEngine,
  renewLeases,
  stopEngine,
  takeLease,
} from '../store/lease-store.js';

export interface LeaseManagerDeps {
  db: Db;
  timers: Timers;
  log: (message: string) => void;
  /** lease_s in ms, read at every cycle (a changed setting applies at the next one). */
  leaseMs: () => number;
  kind: string;
  version: string;
  /**
   * The workstations leased among the engines: the LAN ComfyUI instances and the RunPod endpoints,
   * each with its kind. The fair share is computed per kind, so the endpoints are spread among the
   * engines as the LAN workstations are (not all given to the engine that counts them first).
   */
  workstations: () => { id: string; kind: string }[];
  /** Attempts this engine follows on a workstation: a release above the fair share takes idle ones first. */
  busy: (instanceId: string) => number;
  /** This engine took a workstation's lease (after the take committed). */
  gained: (instanceId: string, epoch: number) => void;
  /** This engine no longer holds a workstation's lease. */
  lost: (instanceId: string) => void;
  /** Whether a pid on this host is alive (default process.kill(pid, 0)). */
  pidAlive?: (pid: number) => boolean;
}

export class LeaseManager implements FarmLeases {
  readonly identity: EngineIdentity;
  /** The leases held, by workstation: their epochs. */
  private held = new Map<string, number>();
  private timer: unknown = null;
  private running = false;
  private failing = false;

  constructor(private readonly d: LeaseManagerDeps) {
    this.identity = { id: randomId(), host: hostname(), pid: process.pid, version: d.version, kind: d.kind };
  }

  /**
   * Writes this engine's row (it took the farm): listed among the farm's engines from now on. An
   * engine on this host whose process is gone (killed, crashed: the restart after it) hands its
   * leases over now instead of at their expiry — a pid reused since only means waiting out lease_s.
   */
  register(): void {
    const { db } = this.d;
    registerEngine(db, this.identity);
    for (const e of runningEnginesOn(db, this.identity.host, this.identity.id))
      if (!(this.d.pidAlive ?? pidAlive)(e.pid)) stopEngine(db, e.id);
  }

  /** Takes the first leases at once (the scheduler recovers and dispatches on them), then renews every third of lease_s. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.cycle();
  }

  epochOf(instanceId: string): number | null {
    return this.held.get(instanceId) ?? null;
  }

  /** The workstations this engine holds now. */
  holding(): string[] {
    return [...this.held.keys()];
  }

  fence(instanceId: string, epoch: number): void {
    if (leaseHeld(this.d.db, instanceId, this.identity.id, epoch)) return;
    // Refused: this engine stops dispatching there and its runners there detach, before its next cycle.
    if (this.held.get(instanceId) === epoch) {
      this.held.delete(instanceId);
      queueMicrotask(() => this.d.lost(instanceId));
    }
    throw new LeaseLost(instanceId, epoch);
  }

  /**
   * A graceful stop (after the farm stopped following): every lease handed over at once and the
   * engine marked stopped, so the other engines take its workstations at their next cycle.
   */
  stop(): void {
    this.pause();
    this.held.clear();
    try {
      stopEngine(this.d.db, this.identity.id);
    } catch (err) {
      this.d.log(
        `the workstation leases could not be handed over (${(err as Error).message}); the other engines take them once they expire`,
      );
    }
  }

  /** Tests: stop renewing without handing anything over — a frozen or cut-off engine, as the others see it. */
  pause(): void {
    this.running = false;
    if (this.timer !== null) this.d.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  /** Tests: renew again after `pause` (a frozen engine that wakes up: it learns which leases it lost). */
  resume(): void {
    if (this.running) return;
    this.running = true;
    this.cycle();
  }

  private arm(): void {
    if (!this.running) return;
    this.timer = this.d.timers.setTimeout(
      () => {
        this.timer = null;
        this.cycle();
      },
      Math.max(200, Math.round(this.d.leaseMs() / 3)),
    );
  }

  private cycle(): void {
    if (!this.running) return;
    let change: { next: Map<string, number> } | null = null;
    try {
      change = { next: this.d.db.transaction(() => this.decide(this.d.leaseMs())) };
      this.failing = false;
    } catch (err) {
      // The database unreachable: nothing is known to have changed; the writes of the attempts hold
      // the farm meanwhile, and the next cycle learns which leases survived.
      if (!this.failing)
        this.d.log(`the workstation leases could not be renewed (${(err as Error).message}); trying again`);
      this.failing = true;
    }
    if (change) this.apply(change.next);
    this.arm();
  }

  /** The leases this engine holds after this cycle's renewals, hand-overs and takes (inside one transaction). */
  private decide(leaseMs: number): Map<string, number> {
    const { db } = this.d;
    const me = this.identity;
    if (!renewEngine(db, me.id)) registerEngine(db, me);
    const next = new Map(renewLeases(db, me.id, leaseMs).map((r) => [r.instance_id, r.epoch]));
    const live = liveEngineIds(db, leaseMs);
    const engines = Math.max(1, live.length + (live.includes(me.id) ? 0 : 1));
    const { rows, now } = leaseRows(db);
    const byId = new Map(rows.map((r) => [r.instance_id, r]));
    const kinds = new Map<string, string[]>();
    for (const w of this.d.workstations()) {
      const ids = kinds.get(w.kind);
      if (ids) ids.push(w.id);
      else kinds.set(w.kind, [w.id]);
    }
    const ctx = { leaseMs, engines, byId, now };
    for (const stations of kinds.values()) this.decideKind(stations, next, ctx);
    return next;
  }

  /** The hand-overs and takes among one kind of workstation (its own fair share). */
  private decideKind(
    stations: readonly string[],
    next: Map<string, number>,
    c: { leaseMs: number; engines: number; byId: Map<string, LeaseRow>; now: number },
  ): void {
    const { db } = this.d;
    const me = this.identity;
    const { byId, now, leaseMs } = c;
    const pinOf = (id: string) => byId.get(id)?.pinned_engine ?? null;
    const mine = (pin: string | null) => pin === me.id || pin === me.host;
    const unpinned = stations.filter((id) => pinOf(id) === null);
    // Each engine's fair share of this kind's workstations; those pinned to it count towards it.
    const pinnedHere = stations.filter((id) => mine(pinOf(id))).length;
    const share = Math.max(0, Math.ceil(stations.length / c.engines) - pinnedHere);
    const held = [...next.keys()].filter((id) => stations.includes(id));

    const release: string[] = [];
    for (const id of held) {
      const pin = pinOf(id);
      if (pin !== null && !mine(pin)) release.push(id);
    }
    const heldUnpinned = held.filter((id) => pinOf(id) === null);
    if (heldUnpinned.length > share) {
      const idleFirst = heldUnpinned.sort((a, b) => this.d.busy(a) - this.d.busy(b));
      release.push(...idleFirst.slice(share));
    }
    for (const id of release) {
      releaseLease(db, id, me.id);
      next.delete(id);
    }

    const free = (id: string) => {
      const r = byId.get(id);
      return r === undefined || r.engine_id === null || r.expires_at < now;
    };
    const t = (instanceId: string) => takeLease(db, { instanceId, engineId: me.id, host: me.host, leaseMs });
    for (const id of stations)
      if (mine(pinOf(id)) && !next.has(id) && free(id)) {
        const epoch = t(id);
        if (epoch !== null) next.set(id, epoch);
      }
    let count = Math.min(heldUnpinned.length, share);
    for (const id of unpinned) {
      if (count >= share) break;
      if (next.has(id) || !free(id)) continue;
      const epoch = t(id);
      if (epoch === null) continue;
      next.set(id, epoch);
      count++;
    }
  }

  /** After the cycle committed: the leases lost are said first, then the ones gained (recovered by the scheduler). */
  private apply(next: Map<string, number>): void {
    const before = this.held;
    this.held = next;
    for (const [id, epoch] of before) if (next.get(id) !== epoch) this.d.lost(id);
    for (const [id, epoch] of next) if (before.get(id) !== epoch) this.d.gained(id, epoch);
  }
}
