/**
 * Several engines on one PostgreSQL farm (issue 27): a rush job bursts to the cloud at once only
 * while no LAN slot is free — on the whole farm, not only on the workstations this engine drives
 * (burst-policy.ts). This engine's own free slots the LAN pass counts; this answers for the
 * workstations other engines drive: can one of them take the job now? They are described from the
 * store as `jobs why` describes them (views/other-engines-facts.ts: what runs there, the
 * reservation its driver keeps there), with what this engine's own probes know of the server
 * (health, VRAM, node list), and judged by the same rule as `jobs why` (views/wait-reasons.ts).
 *
 * Cheap by construction: the store is read only when a rush job is actually weighed for the cloud
 * with no slot of this engine's free, and then once per dispatch pass, however many rush jobs.
 */
import type { FarmLeases } from '../pools/attempt/lease-fence.js';
import type { Db } from '../store/database.js';
import type { JobRow } from '../store/job-rows.js';
import { withOtherEngines } from '../views/other-engines-facts.js';
import { instanceWaitReason, type InstanceFacts } from '../views/wait-reasons.js';
import type { JobSnapshot } from './policy.js';

export interface LanElsewhereDeps {
  db: Db;
  leases: FarmLeases;
  /** What this engine knows of every LAN workstation (its own probes), reservations of its own included. */
  facts: () => InstanceFacts[];
  /** The workstations whose node list has everything this job needs. */
  capable: (job: JobRow) => ReadonlySet<string>;
  snapshot: (job: JobRow) => JobSnapshot;
}

/** For one dispatch pass: whether a LAN workstation another live engine drives can take `job` now. */
export function lanFreeElsewhere(d: LanElsewhereDeps): (job: JobRow) => boolean {
  let others: InstanceFacts[] | null = null;
  return (job) => {
    // Only those another engine drives now (an unexpired lease): one nobody drives takes no job until an engine leases it.
    others ??= withOtherEngines(d.db, d.leases, d.facts()).filter((f) => Boolean(f.drivenBy));
    if (others.length === 0) return false;
    const capable = d.capable(job);
    const snap = d.snapshot(job);
    return others.some((f) => capable.has(f.id) && instanceWaitReason(snap, f) === null);
  };
}
