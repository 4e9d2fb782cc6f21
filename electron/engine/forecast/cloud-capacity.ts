/**
 * Which RunPod endpoints the forecast counts, and why not when it counts none (docs/forecast.md#runpod-burst):
 * the endpoints the dispatch pass would send to (pools/runpod/runpod-pool.ts: active, not unhealthy),
 * while burst is allowed and today's budget is not spent — the refusals in the burst policy's own
 * words (burst-policy.ts). Each endpoint's workers are free when its running attempts are expected
 * to end; its delay (RunPod's queue and cold start) is the median measured there. Pure.
 */
import type { InstanceView } from '../../../shared/domain.js';
import type { ForecastBurst } from '../../../shared/forecast.js';
import { burstDecision } from '../pools/runpod/burst-policy.js';
import type { SimBurst, SimEndpoint } from './burst-capacity.js';

/** RunPod's delay before a job starts on an endpoint not measured yet: a typical serverless cold start. */
export const UNMEASURED_DELAY_MS = 30_000;

const GB = 1024 ** 3;

export interface CloudFacts {
  /** The farm's instances (the RunPod ones are picked here). */
  endpoints: readonly InstanceView[];
  /** Per instance, when its taken slots are expected to be free (running attempts). */
  free: ReadonlyMap<string, readonly number[]>;
  now: number;
  burstAfterS: number;
  budgetUsdPerDay: number;
  /** Today's (UTC) cloud spend, farm-wide; read only when some endpoint is registered. */
  spentTodayUsd: () => number;
  /** The median measured delay on an instance (run-model.ts delayOf), null when none yet. */
  delayOf: (instanceId: string) => number | null;
}

export function cloudCapacity(f: CloudFacts): { sim: SimBurst | null; view: ForecastBurst | null } {
  const registered = f.endpoints.filter((e) => e.kind === 'runpod' && e.adminState !== 'disabled');
  if (registered.length === 0) return { sim: null, view: null };
  const spent = f.spentTodayUsd();
  const base = {
    budgetUsdPerDay: f.budgetUsdPerDay,
    leftTodayUsd: Math.max(0, Math.round((f.budgetUsdPerDay - spent) * 100) / 100),
    jobs: 0,
    costUsd: 0,
    budgetOutAt: null,
  };
  const no = (reason: string) => ({ sim: null, view: { ...base, counted: false, reason, workers: 0 } });
  // The policy's refusals that hold for every job: burst off, the day's budget spent.
  const d = burstDecision({
    waitedS: Number.POSITIVE_INFINITY,
    rush: false,
    lanSlotFree: false,
    burstAfterS: f.burstAfterS,
    spentTodayUsd: spent,
    budgetUsdPerDay: f.budgetUsdPerDay,
  });
  if (!d.take) return no(d.reason);
  const usable = registered.filter((e) => e.adminState === 'active' && e.health !== 'unhealthy');
  if (usable.length === 0)
    return no(
      registered
        .map(
          (e) =>
            `${e.name} is ${e.health === 'unhealthy' ? `unhealthy${e.lastError ? ` (${e.lastError})` : ''}` : e.adminState}`,
        )
        .join(', '),
    );
  const endpoints: SimEndpoint[] = usable.map((e) => {
    const taken = [...(f.free.get(e.id) ?? [])].sort((a, b) => a - b);
    const workers = Math.max(1, e.maxConcurrency);
    return {
      id: e.id,
      name: e.name,
      gpuName: e.gpuName,
      tags: e.tags,
      vramGb: e.vram ? e.vram.totalBytes / GB : null,
      freeAt: Array.from({ length: workers }, (_, k) => Math.max(f.now, taken[k] ?? f.now)),
      delayMs: f.delayOf(e.id) ?? UNMEASURED_DELAY_MS,
      pricePerHourUsd: e.kind === 'runpod' ? e.endpoint.pricePerHourUsd : 0,
    };
  });
  return {
    sim: { afterMs: f.burstAfterS * 1000, endpoints, budgetUsdPerDay: f.budgetUsdPerDay, spentTodayUsd: spent },
    view: { ...base, counted: true, reason: null, workers: endpoints.reduce((n, e) => n + e.freeAt.length, 0) },
  };
}
