/**
 * The engines of a PostgreSQL farm as the API shows them (`farm.engines`), and which engine drives
 * each workstation (a card's `engine`). On SQLite one engine runs the data folder's farm and there
 * are no leases: an empty list, and cards without `engine`.
 */
import type { InstanceView } from '../../../shared/domain.js';
import type { FarmEngines } from '../../../shared/engines.js';
import type { Db } from '../store/database.js';
import { engineRows, workstationDrivers } from '../store/lease-store.js';

export function farmEngines(db: Db, leaseS: number): FarmEngines {
  if (!db.postgres) return { store: 'sqlite', leaseS, engines: [] };
  const leaseMs = leaseS * 1000;
  return {
    store: 'postgres',
    leaseS,
    engines: engineRows(db).map((e) => ({
      id: e.id,
      host: e.host,
      pid: e.pid,
      version: e.version,
      kind: e.kind,
      since: e.started_at,
      renewedAt: e.renewed_at,
      renewedAgoMs: Math.max(0, e.now - e.renewed_at),
      stoppedAt: e.stopped_at,
      live: e.stopped_at === null && e.now - e.renewed_at <= leaseMs,
      workstations: e.held,
    })),
  };
}

/** The cards with the engine driving each (PostgreSQL only; SQLite's cards are returned as they are). */
export function withDrivers(db: Db, views: InstanceView[]): InstanceView[] {
  if (!db.postgres) return views;
  const drivers = new Map(workstationDrivers(db).map((d) => [d.instance_id, d]));
  return views.map((v) => {
    const d = drivers.get(v.id);
    return {
      ...v,
      engine: { engineId: d?.engine_id ?? null, host: d?.host ?? null, pinned: d?.pinned_engine ?? null },
    };
  });
}
