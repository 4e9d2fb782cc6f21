/**
 * Why a job is not running now (`jobs.why`), as the engine explains it and every client shows it:
 * per workstation the first reason it cannot take the job, and for the job one sentence and how
 * long the wait lasts.
 */
import type { JobState } from './job-states.js';

/**
 * How long a reason lasts: `now` — the farm changes by itself (a slot frees, a server comes back, a
 * backoff ends); `operator` — someone must act (enable, un-drain, release, make a new take);
 * `never` — the registered hardware or its nodes do not offer what the job needs.
 */
export type WaitLasting = 'now' | 'operator' | 'never';

/** The first reason one workstation cannot take a queued job now, in the order they are looked at. */
export const WAIT_KINDS = [
  'missing_tag',
  'vram_total',
  'capability',
  'disabled',
  'draining',
  'quarantined',
  'offline',
  'unhealthy',
  'unknown',
  'node_list_unknown',
  'vram_other',
  'reserved',
  'busy',
] as const;
export type WaitKind = (typeof WAIT_KINDS)[number];

/** One workstation's answer for one job; `kind` null when it can take the job now. */
export interface InstanceWaitView {
  instanceId: string;
  name: string;
  kind: WaitKind | null;
  lasting: WaitLasting | null;
  /** For the operator, without the workstation's name: "lacks tag img2img", "can take it now". */
  text: string;
}

/** `jobs.why`: why this job is not running, whatever its state. */
export interface JobWhy {
  jobId: string;
  state: JobState;
  /** One sentence, the same the queue row and `jobs list` show. */
  summary: string;
  /** How long the wait lasts at best; null when the job is not waiting (running, finished). */
  lasting: WaitLasting | null;
  /** Queued, and no registered workstation could ever take it (tags, total VRAM, nodes or models). */
  blocked: boolean;
  /** A queued job: every registered workstation's answer, in name order. Empty otherwise. */
  instances: InstanceWaitView[];
  /** A pending job: the job it waits for. */
  dependency: { id: string; stage: string; take: number; state: JobState } | null;
  /** A job waiting out a retry's backoff: when it is queued again (ms). */
  retryAt: number | null;
  /**
   * `farm`: from the farm running in this process (live probes, reservations); `store`: from what
   * the store holds (the last probes a farm wrote, the stored node lists; no reservations).
   */
  source: 'farm' | 'store';
  /**
   * Which VRAM number admission counts for this job, per GPU model of the registered workstations:
   * "needs 7.4 GB learned from 23 runs on RTX 4090; declared 10" (docs/vram-learning.md).
   */
  vram?: string[];
}
