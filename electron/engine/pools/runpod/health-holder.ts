/**
 * Several engines on one PostgreSQL farm (issue 27): who asks a RunPod endpoint for its /health.
 * Only the engine holding the endpoint's lease does — it alone sends it work, and it writes every
 * answer on the endpoint's row (health, last error, last answer) — so the farm asks each endpoint
 * once per round, not once per engine (RunPod rate-limits per key; a farm of three engines would
 * triple the traffic for nothing). The other engines read the health from that row. An endpoint no
 * engine holds now (its engine died and nobody took it yet, or pinned to an engine that is down) is
 * asked by every engine, so its card still says whether it answers.
 */
import type { FarmLeases } from '../attempt/lease-fence.js';
import type { Db } from '../../store/database.js';
import type { RunpodInstanceRow } from '../../store/instance-store.js';
import { workstationDrivers } from '../../store/lease-store.js';

/**
 * For one health round: whether this engine asks the endpoint itself. The store is read once per
 * round, and only when some endpoint is not this engine's. Without leases (SQLite): always.
 */
export function asksHealthHere(db: Db, leases: FarmLeases | null): (endpointId: string) => boolean {
  if (!leases) return () => true;
  let driven: Set<string> | null = null;
  return (id) => {
    if (leases.epochOf(id) !== null) return true;
    driven ??= new Set(
      workstationDrivers(db)
        .filter((d) => d.engine_id !== null)
        .map((d) => d.instance_id),
    );
    return !driven.has(id);
  };
}

type HealthFields = Pick<RunpodInstanceRow, 'health' | 'last_error' | 'last_probe_at' | 'last_answer_at'>;

/** `row` with the health its holder last wrote (`stored`), and whether that changed what its card says. */
export function withStoredHealth<R extends HealthFields>(row: R, stored: HealthFields): { row: R; changed: boolean } {
  const changed =
    row.health !== stored.health ||
    row.last_error !== stored.last_error ||
    row.last_probe_at !== stored.last_probe_at ||
    row.last_answer_at !== stored.last_answer_at;
  if (!changed) return { row, changed };
  return {
    row: {
      ...row,
      health: stored.health,
      last_error: stored.last_error,
      last_probe_at: stored.last_probe_at,
      last_answer_at: stored.last_answer_at,
    },
    changed,
  };
}
