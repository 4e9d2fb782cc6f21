/**
 * What an endpoint's /health answer says, for its card and the RunPod form's "Test connection"
 * (cloud.testRunpod): the counts (workers, RunPod's queue), and a failure in words a person can act on.
 */
import type { RunpodHealthView, RunpodTestView } from '../../../../shared/domain.js';
import type { RunpodClient } from './runpod-client.js';
import { RunpodHttpError } from './runpod-client.js';
import type { HealthAnswer } from './runpod-protocol.js';

export function healthView(a: HealthAnswer): RunpodHealthView {
  return {
    workersIdle: a.workers.idle ?? null,
    workersRunning: a.workers.running ?? null,
    inQueue: a.jobs.inQueue ?? null,
    inProgress: a.jobs.inProgress ?? null,
  };
}

/** A failed /health in words: what to check (the key, the endpoint id), never the key nor what another service answered. */
export function healthFailureWords(err: unknown): string {
  if (!(err instanceof RunpodHttpError)) return err instanceof Error ? err.message : String(err);
  if (err.rejectedKey)
    return `RunPod refused the API key (HTTP ${err.status}): set it with shotfarm workers runpod-key or RUNPOD_API_KEY on the farm host`;
  if (err.status === 404)
    return 'RunPod knows no endpoint with this id (HTTP 404): copy it from RunPod console → Serverless → your endpoint';
  return err.message;
}

/** One /health, timed: what "Test connection" shows. */
export async function testHealth(client: RunpodClient, now: () => number): Promise<RunpodTestView> {
  const t0 = now();
  try {
    const a = await client.health();
    return { ok: true, latencyMs: Math.round(now() - t0), health: healthView(a) };
  } catch (err) {
    return { ok: false, latencyMs: Math.round(now() - t0), error: healthFailureWords(err) };
  }
}
