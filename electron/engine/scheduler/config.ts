/** The scheduler's tunables, with the defaults of SPEC §4–§6. Tests shorten the times. */
import { DEFAULT_RETRY, type RetryPolicy } from './policy.js';

export interface SchedulerConfig {
  /** Where outputs are stored: `<root>/<project>/<episode>/<shot>/<stage>/take-<n>/`. */
  outputRoot: string;
  probeIntervalMs: number;
  probeTimeoutMs: number;
  objectInfoTimeoutMs: number;
  /** Probe failures in a row before an instance is unhealthy (takes no work), then offline. */
  unhealthyAfter: number;
  offlineAfter: number;
  /** How often a running attempt asks /history (also after every reconnect). */
  historyPollMs: number;
  /** No progress and no queue change for this long → interrupt (stall timeout). */
  stallTimeoutS: number;
  /** Instance unreachable this long during an attempt → the attempt is lost (transient). */
  graceMs: number;
  /** After an interrupt, wait at most this long for the prompt to leave the server. */
  interruptWaitMs: number;
  requestTimeoutMs: number;
  retry: RetryPolicy;
  /** Instance-level failures in a row before quarantine, and how long it lasts. */
  quarantineAfter: number;
  quarantineMs: number;
  /** Queued jobs looked at per dispatch decision (no head-of-line blocking within this window). */
  candidateScan: number;
  /** A job waiting this long for hardware gets an instance reserved for it (no starvation). */
  starvationMs: number;
  /** Durable progress checkpoints at most this often per job. */
  progressSaveMs: number;
  /** WebSocket reconnect budget. */
  wsGiveUpMs: number;
}

export function schedulerConfig(outputRoot: string, over: Partial<SchedulerConfig> = {}): SchedulerConfig {
  return {
    outputRoot,
    probeIntervalMs: 2_000,
    probeTimeoutMs: 1_500,
    objectInfoTimeoutMs: 15_000,
    unhealthyAfter: 2,
    offlineAfter: 5,
    historyPollMs: 2_000,
    stallTimeoutS: 300,
    graceMs: 60_000,
    interruptWaitMs: 30_000,
    requestTimeoutMs: 10_000,
    retry: DEFAULT_RETRY,
    quarantineAfter: 3,
    quarantineMs: 5 * 60_000,
    candidateScan: 512,
    starvationMs: 10 * 60_000,
    progressSaveMs: 1_000,
    wsGiveUpMs: 30_000,
    ...over,
  };
}
