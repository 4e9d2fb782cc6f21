/**
 * What a RunPod attempt costs, as a pure function. RunPod bills serverless workers per second of
 * worker time; its /status answer gives `delayTime` (ms from submission until a worker started the
 * job: queue wait plus any cold start) and `executionTime` (ms the handler ran). The cold-start part
 * of delayTime is billed and the queue-wait part is not, and /status does not separate them, so we
 * bill executionTime + delayTime, rounded up to whole seconds: an upper bound, never an
 * underestimate of what the budget has to cover (docs/runpod-protocol.md).
 */

export interface BilledTime {
  billedS: number;
  costUsd: number;
}

export function attemptCost(
  delayTimeMs: number | undefined,
  executionTimeMs: number | undefined,
  pricePerHourUsd: number,
): BilledTime {
  const ms = Math.max(0, delayTimeMs ?? 0) + Math.max(0, executionTimeMs ?? 0);
  const billedS = Math.ceil(ms / 1000);
  return { billedS, costUsd: Math.round(((billedS * pricePerHourUsd) / 3600) * 1e6) / 1e6 };
}

/** The start of the UTC day `now` falls in: the budget is per UTC day, the same on every host. */
export function utcDayStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}
