/**
 * The shape of the scheduler's tunables (what farm-config.ts builds and setting-entries.ts writes
 * the operator's settings into), apart from both so neither imports the other.
 */
/** From the retry_* farm settings (defaults in shared/farm-settings.ts). */
export interface RetryPolicy {
  maxAttempts: number;
  baseMs: number;
  capMs: number;
}

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
  /** WebSocket reconnect budget (a one-prompt follower; a workstation's socket reconnects for as long as it is registered). */
  wsGiveUpMs: number;
  /** The largest /object_info answer read (object_info_max_mb). */
  objectInfoMaxBytes: number;
  /** The largest output file stored (output_max_gb). */
  outputMaxBytes: number;
  /** One output download may take the template's timeout, but never less than this (a small file on a short template). */
  downloadMinMs: number;
  /** A graceful stop lets downloads in flight finish for at most this long; the rest are collected at the next start. */
  stopGraceMs: number;
  /** After a storage fault (database busy/full, output disk full) the farm retries after this, doubling up to storageRetryCapMs. */
  storageRetryMs: number;
  storageRetryCapMs: number;
  /** The longest an attempt waits for its workstation's socket before posting without it (polling then carries it). */
  socketWaitMs: number;
  /** The longest an attempt may take from its claim to its POST (catch-up, uploads, socket): past it, it fails, logged. */
  preparationMs: number;
  /**
   * Keep at most one claimed prompt queued on each workstation behind the running one (the farm
   * setting `prefetch`): ComfyUI starts it with its own ~1 ms gap instead of Shotfarm's round trip.
   */
  prefetch: boolean;
  /** Cloud burst (cloud/burst-policy.ts): how long a job waits before a RunPod endpoint may take it. */
  burstAfterS: number;
  /** Cloud burst: what RunPod attempts may cost per UTC day. */
  burstBudgetUsdPerDay: number;
  /** Cloud burst: how often an attempt asks RunPod's /status (jitter added), in ms. */
  runpodPollMs: number;
  /**
   * Several engines on one PostgreSQL farm (lease_s): how long a workstation's lease lasts; renewed
   * every third of it (lock/lease-manager.ts).
   */
  leaseMs: number;
  /** Tests: an illegal transition (a bug) is also thrown out of the runner, so the test fails. */
  failOnIllegalTransition: boolean;
  /** Learned VRAM (scheduler/vram-need.ts): runs before the learned need is used, and the margin on it (%). */
  vramLearn: { learnAfter: number; marginPct: number };
  /** How often a workstation's /system_stats is read while a prompt of ours runs there (ms; 0: never). */
  vramSampleMs: number;
  /** Fair share between projects (scheduler/fair-share.ts): on/off, its window, the weights (project → weight; absent = 1). */
  fairShare: { on: boolean; windowMs: number; weights: Record<string, number> };
}
