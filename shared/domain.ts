/**
 * The shapes the engine hands to its clients (UI, CLI, other studio tools). Plain data, JSON-safe:
 * times are epoch milliseconds, sizes are bytes.
 */
import type { DeliveryStatus, HookEvent } from './hooks.js';

// Part of this module's vocabulary: the ledger's views (assets.ts), a running attempt's live parts
// (live-attempt.ts), why a job waits (wait.ts), the job drawer's views (job-detail.ts), jobs
// counted by a field (job-facets.ts).
export * from './assets.js';
export * from './job-detail.js';
export * from './job-facets.js';
export * from './live-attempt.js';
export * from './wait.js';
import type { RunEstimate } from './job-detail.js';
import type { FarmStateView } from './farm-settings.js';
import type { ContactGap, LiveAttempt, LostContact } from './live-attempt.js';
import type { JobState } from './job-states.js';
import type { Priority } from './priorities.js';
import type { ServerLog } from './server-log.js';
import type { TakeKey } from './take-key.js';
import type { WorkstationDriver } from './engines.js';

/** Live progress of a running attempt, as last checkpointed. */
export interface JobProgress {
  node: string | null;
  nodeType: string | null;
  value: number;
  max: number;
  at: number;
  /**
   * Nodes of the workflow this attempt has reached (the one running now included, cached ones
   * counted as done) and how many it has: "node 4 of 7". Absent when not known (a checkpoint read
   * back from the store by a process that does not follow the attempt).
   */
  nodesDone?: number;
  nodesTotal?: number;
}

/** What a job renders: a take of a stage of a shot, from a template, at a priority (a job, an import row). */
export interface RenderTarget extends TakeKey {
  template: string;
  priority: Priority;
}

export interface JobView extends RenderTarget {
  id: string;
  /** Operator order within a priority: lower runs first (move to top makes it the smallest). */
  rank: number;
  state: JobState;
  /** Why the job is in its state, in words for the operator (failure reason, wait reason…). */
  stateReason: string | null;
  errorClass: string | null;
  attempts: number;
  maxAttempts: number;
  instanceId: string | null;
  dependsOn: string | null;
  seed: number | null;
  vramGb: number;
  tags: string[];
  /** Queued, and no registered workstation could ever take it (tags, total VRAM, nodes or models): not a state, it stays queued. */
  blocked: boolean;
  /**
   * Why it is not running now, in one sentence (jobs.why has the details): for a queued job the
   * engine's summary (kept in the store while blocked), for a retry when it is queued again; null otherwise.
   */
  waitReason: string | null;
  progress: JobProgress | null;
  /** The running attempt's phase and prompt number, while a farm in this process follows it. */
  attempt: LiveAttempt | null;
  /** Set while the running attempt's workstation does not answer (from its first failed request). */
  contact: LostContact | null;
  /** A running job: how long its template version usually runs on this GPU model (null: no earlier run). */
  estimate?: RunEstimate | null;
  enqueuedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  updatedAt: number;
  /** Who imported it: a person's name, or `local` (the solo operator). Optional: older fixtures lack it. */
  importedBy?: string;
  /** When the shot list wants it done (epoch ms), or null. Optional: older fixtures lack it. */
  dueAt?: number | null;
  /** A waiting job: when the forecast expects it to end (p50 and p90, epoch ms); null when it cannot say. */
  forecastEnd?: { p50: number; p90: number } | null;
  /** Who last acted on it (hold, cancel, bump…), or null. */
  lastActionBy?: string | null;
}

export interface JobPage {
  rows: JobView[];
  total: number;
}

export const INSTANCE_ADMIN_STATES = ['active', 'draining', 'disabled'] as const;
export type InstanceAdminState = (typeof INSTANCE_ADMIN_STATES)[number];

export const INSTANCE_HEALTH = [
  'unknown',
  'idle',
  'busy',
  'unhealthy',
  'offline',
  'draining',
  'disabled',
  'quarantined',
] as const;
export type InstanceHealth = (typeof INSTANCE_HEALTH)[number];

/**
 * What "healthy" means everywhere (farm status, `shotfarm health`, the Workstations view): it
 * answers its probes and is not quarantined. A draining workstation is healthy — it finishes its
 * work and only takes no new one; that is an operator's choice, not a fault.
 */
export const HEALTHY_STATES: readonly InstanceHealth[] = ['idle', 'busy', 'draining'];

export function isHealthy(health: InstanceHealth): boolean {
  return HEALTHY_STATES.includes(health);
}

export interface VramView {
  totalBytes: number;
  /** Held by ComfyUI itself (loaded models, cache) — it gives this back on demand. */
  comfyBytes: number;
  /** Not usable by ComfyUI: other processes on the GPU (the OOM risk). */
  otherBytes: number;
  freeBytes: number;
}

/** The kinds of workstation: a ComfyUI server Shotfarm reaches directly, or a RunPod serverless endpoint. */
export const INSTANCE_KINDS = ['comfyui', 'runpod'] as const;
export type InstanceKind = (typeof INSTANCE_KINDS)[number];

/** RunPod's public serverless API: an endpoint's API base when none was named (tests and proxies name one). */
export const RUNPOD_API_BASE = 'https://api.runpod.ai/v2';

/** An API base as stored and compared: without spaces or trailing slashes, so "…/v2/" and "…/v2" are one base. */
export function normaliseApiBase(base: string): string {
  return base.trim().replace(/\/+$/, '');
}
/** RunPod's default execution timeout of an endpoint (600 s) when the operator names none. */
export const RUNPOD_EXECUTION_TIMEOUT_S = 600;

/** What is stored of a RunPod endpoint (its row's facts, defaults applied). */
export interface RunpodEndpoint {
  endpointId: string;
  apiBase: string;
  pricePerHourUsd: number;
  /** The endpoint's execution timeout: how long an attempt unknown on RunPod waits before it is retried. */
  executionTimeoutS: number;
}

/** A RunPod serverless endpoint's card facts from the running farm (issue 18): what it costs and whether it may burst now. */
export interface CloudEndpointView extends RunpodEndpoint {
  kind: 'runpod';
  /** What RunPod attempts cost today (UTC), farm-wide, and the daily budget. */
  spentTodayUsd: number;
  budgetUsdPerDay: number;
  /** Why it takes no job now ("today's cloud budget is spent", "cloud burst waits until …"), or null. */
  burstWait: string | null;
  /** What the endpoint's last /health answer said (null before the first): an endpoint has workers and RunPod's queue, not a GPU's VRAM. */
  endpointHealth: RunpodHealthView | null;
}

/**
 * An endpoint's /health counts: its workers (idle, running) and the jobs RunPod holds for it (in
 * queue, in progress) — every client's, not only this farm's. A count RunPod left out is null.
 */
export interface RunpodHealthView {
  workersIdle: number | null;
  workersRunning: number | null;
  inQueue: number | null;
  inProgress: number | null;
}

/** `cloud.testRunpod` (the RunPod form's "Test connection"): what one /health said, or why it failed. Nothing is stored. */
export type RunpodTestView =
  | { ok: true; latencyMs: number; health: RunpodHealthView }
  | { ok: false; latencyMs: number; error: string };

/** `cloud.spend`: what RunPod attempts cost today (UTC), per project/episode, against the daily budget. */
export interface CloudSpend {
  dayStart: number;
  totalUsd: number;
  budgetUsdPerDay: number;
  /** Where the API key comes from; never the key. */
  keySource: 'environment' | 'stored' | 'none';
  byProjectEpisode: { project: string; episode: string; costUsd: number; attempts: number }[];
}

/** A workstation's card: what every kind shows, and by `kind` what only that kind has. */
export type InstanceView = InstanceViewBase & ({ kind: 'comfyui' } | { kind: 'runpod'; endpoint: RunpodEndpoint });

interface InstanceViewBase {
  /** On a RunPod endpoint while a farm runs (spend, why it waits); absent otherwise. */
  cloud?: CloudEndpointView;
  /** On a PostgreSQL farm run by several engines: which engine drives it now, and its pin; absent on SQLite. */
  engine?: WorkstationDriver;
  id: string;
  name: string;
  url: string;
  tags: string[];
  maxConcurrency: number;
  /** Per-stage VRAM requirement overrides in GB for jobs on this instance. */
  vramOverrides: Record<string, number>;
  adminState: InstanceAdminState;
  health: InstanceHealth;
  gpuName: string | null;
  vram: VramView | null;
  comfyVersion: string | null;
  queueLength: number | null;
  currentJobIds: string[];
  /** When the last probe was made, answered or not. */
  lastProbeAt: number | null;
  /**
   * When it last answered. Older than `lastProbeAt` while it does not answer: then `vram` and
   * `queueLength` are null (no longer known) and a card says "unknown since" this time.
   */
  lastAnswerAt: number | null;
  lastError: string | null;
  quarantinedUntil: number | null;
  createdAt: number;
}

export interface TemplateParamView {
  name: string;
  path: string;
}

export interface TemplateView {
  id: number;
  name: string;
  version: number;
  stage: string;
  hash: string;
  vramGb: number;
  tags: string[];
  timeoutS: number;
  parameters: TemplateParamView[];
  createdAt: number;
}

/** What the farm waits for by itself: its database or its output disk cannot take a write now. */
export type StorageHoldKind =
  | 'database_busy'
  | 'database_full'
  | 'database_io'
  | 'database_readonly'
  | 'database_unreachable'
  | 'output_disk_full'
  | 'output_not_writable';

/**
 * The farm holds — dispatches nothing, finishes nothing — until its storage takes writes again,
 * and tries again by itself (no operator action needed beyond freeing the disk or the lock).
 */
export interface StorageHoldView {
  kind: StorageHoldKind;
  /** What failed, in words ("output disk full: sh010_00001_.png could not be written to …"). */
  reason: string;
  /** Since when (epoch ms). */
  since: number;
  /** When it tries again (epoch ms). */
  retryAt: number;
}

export interface FarmStatus {
  jobsByState: Record<JobState, number>;
  /**
   * Running jobs whose prompt has not started on its workstation — it waits there behind the one
   * running (prefetch), or is being sent: "next", not rendering. Counted in `jobsByState.running`
   * too; 0 when no farm runs in this process (only the farm knows).
   */
  jobsNext: number;
  /** Queued jobs no registered workstation could ever take (counted in jobsByState.queued too). */
  blocked: number;
  /**
   * Jobs failed for good or timed out that nobody handled yet (no retry, no newer take, not
   * cancelled): the Failures tab's badge, which clears when every failure is handled.
   */
  openFailures: number;
  instances: InstanceView[];
  /** Healthy = probed recently and answering; null when no instance was probed yet. */
  healthyInstances: number | null;
  /** True when this process dispatches: its farm runs and the farm state is `running`. */
  dispatching: boolean;
  /** The operator's durable farm state (running, paused, stopped), who set it and when. */
  farmState: FarmStateView;
  /** Attempts being followed right now. */
  activeAttempts: number;
  /** The farm in this process waits for its storage (a full disk, a locked database); null when it does not. */
  storageHold: StorageHoldView | null;
}

/** One probe of one workstation: what /system_stats and /queue said, or why they did not answer. */
export type ProbeView =
  | {
      ok: true;
      gpuName: string | null;
      vram: VramView | null;
      comfyVersion: string | null;
      queueRunning: number;
      queuePending: number;
      latencyMs: number;
    }
  | { ok: false; error: string; latencyMs: number };

/**
 * `instances.test`: what a ComfyUI server at a URL says, asked before it is saved (nothing is
 * stored): its probe (GPU, VRAM, version, queue) and how many node classes it has installed.
 */
export interface ConnectionTestView {
  url: string;
  probe: ProbeView;
  /** Node classes its /object_info lists; null when the probe failed or the list did not come. */
  nodeCount: number | null;
  /** Why the node list did not come, when the probe itself answered. */
  nodeError: string | null;
}

/** `instances.probeAll`: every enabled workstation probed now, and its health as that probe says. */
export interface ProbeReport {
  /** How many are healthy (isHealthy) by this probe. */
  healthy: number;
  instances: {
    id: string;
    name: string;
    url: string;
    adminState: InstanceAdminState;
    health: InstanceHealth;
    probe: ProbeView;
  }[];
}

/** One row of an import preview. */
export interface ImportRowView extends RenderTarget {
  /** 1-based row number in the file (CSV data row or JSON shot/stage entry). */
  row: number;
  /** Line in the source file where the row starts, when known. */
  line: number | null;
  jobId: string | null;
  status: 'new' | 'duplicate' | 'error';
  errors: string[];
  warnings: string[];
}

export interface ImportPreview {
  previewId: string;
  fileName: string;
  format: 'json' | 'csv';
  /** For CSV: which column fed which field, so the operator can check the mapping. */
  mapping: Record<string, string>;
  /** File-wide remarks, e.g. what could not be checked yet because no workstation was probed. */
  notices: string[];
  /**
   * Every row in file order; or, when the caller asked for `firstRows`, that many, errors first and
   * then in file order (the rest by import.previewRows).
   */
  rows: ImportRowView[];
  /** How many rows the file has (more than `rows` holds when the caller pages). */
  totalRows: number;
  counts: { new: number; duplicate: number; error: number };
  /**
   * Why the caller's commit of this preview would be refused (the rush rule: rows that would be
   * rush, for a role without rush), said before they confirm; null when it would be stored.
   */
  refusal: string | null;
}

export type ImportCounts = ImportPreview['counts'];

/** A page of a kept preview's rows (import.previewRows): errors first, then in file order. */
export interface ImportPreviewRows {
  rows: ImportRowView[];
  offset: number;
  total: number;
}

/**
 * How far an import is (the `import.progress` event), for the caller that gave `progressId` with
 * import.preview or import.commit: `checking` streams the rows checked so far with their counts;
 * `writing` is the commit's one transaction (all rows or none, so it has no partial count);
 * `done` ends every run, with `done` equal to `total`.
 */
export interface ImportProgress {
  progressId: string;
  phase: 'checking' | 'writing' | 'done';
  /** Rows checked (checking), 0 (writing), or every row (done). */
  done: number;
  total: number;
  /** Of the rows done so far (the preview's; at a commit's end: new = imported, duplicate = already stored). */
  counts: ImportCounts;
}

export interface ImportResult {
  imported: number;
  duplicates: number;
  rejected: number;
  jobIds: string[];
}

export interface ExportResult {
  path: string;
  rows: number;
  bytes: number;
}

/** One attempt, as the Failures view and the job detail show it. */
export interface AttemptView {
  id: string;
  jobId: string;
  n: number;
  instanceId: string | null;
  instanceName: string | null;
  gpuName: string | null;
  /** `ended`, or while it runs its live phase (claimed, posted, running, collecting). */
  state: string;
  /** ComfyUI's queue number for this execution, once known. */
  promptNumber: number | null;
  outcome: string | null;
  errorClass: string | null;
  reason: string | null;
  nodeId: string | null;
  nodeType: string | null;
  exceptionType: string | null;
  /** What ComfyUI said when the prompt failed: the exception's message and traceback (bounded), or null. */
  exceptionMessage: string | null;
  traceback: string | null;
  /** A failed LAN attempt's lines from its ComfyUI's own log, or why there are none; null when not read (shared/server-log.ts). */
  serverLog: ServerLog | null;
  queuedAt: number;
  dispatchedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
}

/** A failed job in the Failures view: with the take that superseded it, if the operator made one. */
export interface FailedJobView extends JobView {
  /** The newest later take of the same shot and stage (a new take was made instead of a retry); null while this is the latest. */
  supersededByTake: number | null;
}

/** Failed jobs sharing one reason (instance names and attempt counts left out of the grouping). */
export interface FailureGroup {
  key: string;
  reason: string;
  errorClass: string | null;
  /** Every failed job with this reason… */
  count: number;
  /** …of which this many have a newer take (handled: shown only on request). */
  superseded: number;
  /** The latest takes first, then the superseded ones, at most `limitPerGroup`. */
  jobs: FailedJobView[];
}

/** A bar of the per-GPU timeline. */
export interface TimelineBar {
  attemptId: string;
  jobId: string;
  label: string;
  instanceId: string | null;
  /** When it was sent to its workstation (dispatched). */
  start: number;
  /**
   * When its prompt started on the GPU; null while it waits there behind the running one (prefetch)
   * or when it never started (taken back by a pause, cancelled unstarted). Between `start` and this
   * it only waited: drawn apart, not busy time.
   */
  startedAt: number | null;
  end: number | null;
  outcome: string | null;
  /** When its workstation did not answer (drawn over the bar). */
  contactGaps: ContactGap[];
}

/**
 * A stretch the farm did not dispatch (paused or stopped), drawn across the Timeline's lanes so the
 * idle gap it leaves is not read as GPUs idling. `to` is null while it lasts.
 */
export interface FarmPeriod {
  state: 'paused' | 'stopped';
  from: number;
  to: number | null;
  /** Who paused or stopped it, in the record's words (`ana`, `Studio UI`, `cli`). */
  by: string;
}

export interface TimelineView {
  from: number;
  to: number;
  lanes: { instanceId: string; name: string; gpuName: string | null }[];
  bars: TimelineBar[];
  /** The farm's paused and stopped stretches overlapping [from, to], in order. */
  farmPeriods: FarmPeriod[];
}

/** What a release freeze wrote (SPEC §8). */
export interface FreezeResult {
  project: string;
  episode: string;
  manifestJson: string;
  manifestCsv: string;
  root: string | null;
  files: number;
  bytes: number;
  createdAt: number;
}

/** A manifest re-hashed against the files: `passed` when every file is there and unchanged. */
export interface VerifyReport {
  manifest: string;
  format: 'json' | 'csv';
  project: string | null;
  episode: string | null;
  checked: number;
  ok: number;
  missing: string[];
  changed: { path: string; expected: string; actual: string }[];
  unreadable: { path: string; error: string }[];
  passed: boolean;
}

/** One delivery of a hook (a command run or a webhook POST) and how it went. */
export interface HookDeliveryView {
  id: number;
  hookId: string;
  jobId: string;
  event: HookEvent;
  /** Tries made so far. */
  attempts: number;
  status: DeliveryStatus;
  lastError: string | null;
  /** When a pending delivery is tried next, if it is waiting out a backoff. */
  nextAttemptAt: number | null;
  createdAt: number;
  updatedAt: number;
}
