/**
 * Several engines on one PostgreSQL farm (issue 27): an engine knows from its own runners only what
 * runs on the workstations it drives. A workstation another engine drives is described from the
 * store instead (the jobs running there, prefetched ones included: each is a claimed attempt; the
 * reservation its driver keeps there, written on the lease row) and names its driver, so
 * `jobs why` asked of any engine says that gpu-3 is busy with, or kept free by, the other engine
 * ("driven by engine studio-02 · 91ab03c2"), not that it can take the job.
 */
import type { FarmLeases } from '../pools/attempt/lease-fence.js';
import type { Db } from '../store/database.js';
import { runningVramByInstance } from '../store/job-store.js';
import { workstationDrivers } from '../store/lease-store.js';
import type { InstanceFacts } from './wait-reasons.js';

/** How an engine is named to the operator: its host and the start of its id (as `farm engines` and the cards show it). */
export function engineWords(host: string, engineId: string): string {
  return `${host} · ${engineId.slice(0, 8)}`;
}

/** `facts` with the workstations this engine does not drive described from the store, with their drivers. */
export function withOtherEngines(db: Db, leases: FarmLeases, facts: InstanceFacts[]): InstanceFacts[] {
  const elsewhere = facts.filter((f) => leases.epochOf(f.id) === null);
  if (elsewhere.length === 0) return facts;
  const drivers = new Map(workstationDrivers(db).map((d) => [d.instance_id, d]));
  const running = runningVramByInstance(db);
  return facts.map((f) => {
    if (leases.epochOf(f.id) !== null) return f;
    const d = drivers.get(f.id);
    const vram = running.get(f.id) ?? [];
    return {
      ...f,
      running: vram.length,
      runningVramGb: vram.reduce((a, b) => a + b, 0),
      largestRunningVramGb: Math.max(0, ...vram),
      // What that engine keeps free there (a job too large for the slots that free up), as it wrote it.
      reservedFor:
        d?.reserved_job && d.reserved_priority !== null
          ? { jobId: d.reserved_job, priority: d.reserved_priority }
          : null,
      drivenBy: d?.engine_id && d.host ? engineWords(d.host, d.engine_id) : null,
    };
  });
}
