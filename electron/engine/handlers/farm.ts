/** The farm domain: jobs by state and the workstations, stop/resume dispatching, the per-GPU timeline. */
import type { ApiHandlers } from '../../../shared/api.js';
import { isHealthy, type FarmStatus } from '../../../shared/domain.js';
import { timeline } from '../queries/attempts.js';
import { listInstanceRows, toInstanceView } from '../store/instance-store.js';
import { countByState } from '../store/job-store.js';
import { requireFarm, type DomainHandlers, type EngineContext } from './context.js';

export function farmHandlers(ctx: EngineContext): DomainHandlers<'farm'> & Pick<ApiHandlers, 'timeline.get'> {
  const status = (): FarmStatus => {
    const instances = listInstanceRows(ctx.db).map((r) => toInstanceView(ctx.db, r));
    const probed = instances.filter((i) => i.lastProbeAt !== null);
    const farm = ctx.farm();
    return {
      jobsByState: countByState(ctx.db),
      instances,
      healthyInstances: probed.length ? probed.filter((i) => isHealthy(i.health)).length : null,
      dispatching: farm !== null && !farm.isPaused,
      activeAttempts: farm?.activeAttempts() ?? 0,
    };
  };
  return {
    'farm.status': async () => status(),
    'farm.stop': async () => {
      await requireFarm(ctx).stopFarm();
      return status();
    },
    'farm.resume': async () => {
      requireFarm(ctx).resumeFarm();
      return status();
    },
    'timeline.get': async ({ from, to }) => timeline(ctx.db, from, to),
  };
}
