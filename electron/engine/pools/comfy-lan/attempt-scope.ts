/**
 * What the parts of one LAN attempt share: the farm's dependencies, the attempt's facts, and how each
 * part hands its result to the next (the runner starts and stops, attempt-follow watches the
 * execution, attempt-end records the outcome).
 */
import type { AttemptPhase } from '../../../../shared/domain.js';
import type { ComfyClient } from '../../comfy/client.js';
import type { HistoryEntry } from '../../comfy/responses.js';
import type { AttemptFacts } from '../../store/attempt-store.js';
import type { JobRow } from '../../store/job-rows.js';
import type { StoredTemplate } from '../../store/template-store.js';
import type { S3Uploader } from '../../storage/s3-uploader.js';
import type { ApiWorkflow } from '../../templates/workflow.js';
import type { ConcludeDeps } from '../attempt/deps.js';
import type { StopMode } from '../attempt/verdict.js';
import type { LeaseStamp } from '../attempt/lease-fence.js';
import type { ContactWatch } from './contact-watch.js';
import type { AttemptObservation } from './failure.js';
import type { InstanceRegistry, InstanceRuntime } from './instance-registry.js';
import type { LiveAttempts } from './live-attempts.js';
import type { AttemptWatch } from './attempt-watch.js';
import type { Execution } from './prompt-watch.js';
import type { VramSampler } from './vram-sampler.js';

export interface RunnerDeps extends ConcludeDeps {
  registry: InstanceRegistry;
  /** Every attempt's workstation contact (lost-contact marks and the time it is given up). */
  contact: ContactWatch;
  /** Every open attempt's phase, for the views (held in memory: one commit per attempt end). */
  live: LiveAttempts;
  /** Node k of N and the latest preview of each open attempt, fed by its follower (for the views only). */
  watch?: AttemptWatch;
  /** Optional S3-compatible copy of every output; the job completes only once it is confirmed. */
  uploader: S3Uploader | null;
  /** Measures each attempt's VRAM while its prompt runs (absent: not measured). */
  vram?: VramSampler;
  /**
   * The workstation lease this attempt was started under (several engines on one PostgreSQL farm):
   * `batch` is then fenced on it (pools/attempt/lease-fence.ts). Null or absent: no leases (SQLite).
   */
  lease?: LeaseStamp | null;
  /** When the runner is finished (whatever happened). */
  done: (runner: { readonly attemptId: string }) => void;
}

/**
 * How an attempt ended, as attempt-end.ts records it: what the server said (finished, failed, not
 * there) or why the runner stopped early (detached, cancelled, stopped, displaced).
 */
export type Outcome =
  | { kind: 'finished'; entry: HistoryEntry }
  | { kind: 'failed'; obs: AttemptObservation }
  | { kind: 'requeue'; reason: string }
  /** The app is closing: the prompt keeps running, the attempt stays open for recovery. */
  | { kind: 'detached' }
  /** An operator cancelled the job (already recorded): take the prompt off the server. */
  | { kind: 'cancelled' }
  /** "Stop farm": take the prompt off the server, the job goes back to the queue. */
  | { kind: 'stopped' }
  /** A prompt waiting on the server gave its place to a higher-priority job: it was deleted from the server's queue, never started, and the job goes back to the queue uncounted. */
  | { kind: 'displaced'; reason: string };

/** The outcome a stop mode ends an attempt with. */
export function stopOutcome(mode: StopMode): Outcome {
  return mode === 'detach' ? { kind: 'detached' } : mode === 'cancel' ? { kind: 'cancelled' } : { kind: 'stopped' };
}

/** A request to a waiting prompt to leave the server's queue; `answer(true)` once it has left unstarted. */
export interface Displacement {
  reason: string;
  answer: (left: boolean) => void;
}

/** One attempt as its parts see it (implemented by AttemptRunner). */
export interface AttemptScope {
  readonly deps: RunnerDeps;
  readonly job: JobRow;
  readonly attemptId: string;
  readonly instance: InstanceRuntime;
  readonly template: StoredTemplate;
  readonly client: ComfyClient;
  /** The instance's name, for reasons an operator reads. */
  readonly name: string;
  readonly exec: Execution;
  readonly workflow: ApiWorkflow | null;
  /** Aborted when the runner is stopped (requests in flight end at once). */
  readonly signal: AbortSignal;
  readonly stopMode: StopMode | null;
  /** What the attempt learned, written with its end. */
  readonly facts: AttemptFacts;
  /** The client id the prompt was posted with; null when adopted or recovered. */
  readonly postedWith: string | null;
  /** Set once Shotfarm interrupted the prompt itself (a timeout, a cancel). */
  interruptRequested: boolean;
  /** A higher-priority job asked this prompt, waiting on the server, to give its place; answered by the follow loop. */
  displacement: Displacement | null;
  /** A wait that stop() — or wake() — cuts short. */
  sleep(ms: number): Promise<void>;
  wake(): void;
  /** The server started the execution (first seen running), at most once. */
  started(): void;
  /** The attempt moved on; the job is announced when a view changes. */
  phase(p: AttemptPhase): void;
}
