/** A farm with one RunPod endpoint (the RunPod simulator on loopback) and optionally LAN simulators. */
import type { TestContext } from 'node:test';
import { startRunpodSim, type RunpodSim, type RunpodSimOptions } from '../simulator/runpod/server.js';
import type { Engine } from '../../electron/engine/engine.js';
import { farmFor, type Farm, type FarmOptions } from './farm.js';
import type { StoreKind } from './test-store.js';

export const SIM_KEY = 'rp_test_SECRET_9f3a1c7e';

export interface CloudFarm {
  farm: Farm;
  sim: RunpodSim;
  endpointName: string;
}

export async function cloudFarmFor(
  ctx: TestContext,
  o: {
    sim?: RunpodSimOptions;
    farm?: Partial<FarmOptions> /** Leave the scheduler to the test (farm.startScheduler). */;
    start?: boolean;
    budgetUsd?: number;
    burstAfterS?: number;
    pricePerHourUsd?: number;
    executionTimeoutS?: number;
    key?: string;
    /** The farm's store (test-store.ts; default `sqlite`, or SHOTFARM_TEST_STORE's kind). */
    store?: StoreKind;
    /** The endpoint's jobs at once (default 1) and tags (default none). */
    endpoint?: { maxConcurrency?: number; tags?: string[] };
  } = {},
): Promise<CloudFarm> {
  const sim = await startRunpodSim({ apiKey: SIM_KEY, ...o.sim });
  ctx.after(() => sim.close());
  const farm = await farmFor(ctx, {
    instances: [],
    ...(o.store ? { store: o.store } : {}),
    ...o.farm,
    start: false,
    config: { runpodPollMs: 40, ...o.farm?.config },
  });
  await farm.engine.call('cloud.setApiKey', { apiKey: o.key ?? SIM_KEY });
  await farm.engine.call('settings.set', { key: 'burst_budget_usd_per_day', value: o.budgetUsd ?? 5 });
  await farm.engine.call('settings.set', { key: 'burst_after_s', value: o.burstAfterS ?? 0 });
  await addSimEndpoint(farm.engine, 'cloud-sim', sim, { ...o, ...o.endpoint });
  if (o.start !== false) farm.startScheduler();
  return { farm, sim, endpointName: 'cloud-sim' };
}

/** Registers a RunPod simulator as one of the farm's endpoints (an RTX 4090 with 24 GB at $3.60/h, 60 s timeout unless told). */
export function addSimEndpoint(
  engine: Engine,
  name: string,
  sim: RunpodSim,
  o: { pricePerHourUsd?: number; executionTimeoutS?: number; maxConcurrency?: number; tags?: string[] } = {},
) {
  return engine.call('cloud.addRunpod', {
    name,
    endpointId: sim.endpointId,
    apiBase: sim.apiBase,
    gpuName: 'RTX 4090',
    vramGb: 24,
    pricePerHourUsd: o.pricePerHourUsd ?? 3.6,
    executionTimeoutS: o.executionTimeoutS ?? 60,
    ...(o.maxConcurrency === undefined ? {} : { maxConcurrency: o.maxConcurrency }),
    ...(o.tags === undefined ? {} : { tags: o.tags }),
  });
}
