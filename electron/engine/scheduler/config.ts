/**
 * The scheduler's tunables. The operator's ones are farm settings (shared/farm-settings.ts: their
 * defaults, units and bounds live there, once); SETTING_FIELDS says which field of this config each
 * one sets. The engine applies the settings to one live SchedulerConfig object in place, and every
 * module keeps that object and reads `config.x` at each decision — so a changed setting applies at
 * the next decision without a restart. Tests and benchmarks shorten the times with `over`.
 */
import { FARM_SETTINGS, type NumberSettingKey } from '../../../shared/farm-settings.js';
import type { RetryPolicy } from './policy.js';

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
  /** Fair share between projects (scheduler/fair-share.ts): on/off, its window, the weights (project → weight; absent = 1). */
  fairShare: { on: boolean; windowMs: number; weights: Record<string, number> };
  /** Uploaded input files: the largest one, and the most one import may send in all (bytes). */
  uploadFileMaxBytes: number;
  uploadImportMaxBytes: number;
}

/** The numeric farm settings (the folders and project_weights are applied on their own). */
export type NumericSettingKey = NumberSettingKey;

const MB = 1024 * 1024;

/** Where each numeric farm setting lives in the config, in the setting's unit (seconds, counts). */
export const SETTING_FIELDS: { [K in NumericSettingKey]: { of(c: SchedulerConfig): number; put(c: SchedulerConfig, v: number): void } } = {
  retry_attempts: { of: (c) => c.retry.maxAttempts, put: (c, v) => void (c.retry.maxAttempts = v) },
  retry_base_s: { of: (c) => c.retry.baseMs / 1000, put: (c, v) => void (c.retry.baseMs = v * 1000) },
  retry_cap_s: { of: (c) => c.retry.capMs / 1000, put: (c, v) => void (c.retry.capMs = v * 1000) },
  stall_timeout_s: { of: (c) => c.stallTimeoutS, put: (c, v) => void (c.stallTimeoutS = v) },
  grace_s: { of: (c) => c.graceMs / 1000, put: (c, v) => void (c.graceMs = v * 1000) },
  starvation_s: { of: (c) => c.starvationMs / 1000, put: (c, v) => void (c.starvationMs = v * 1000) },
  probe_interval_s: { of: (c) => c.probeIntervalMs / 1000, put: (c, v) => void (c.probeIntervalMs = v * 1000) },
  history_poll_s: { of: (c) => c.historyPollMs / 1000, put: (c, v) => void (c.historyPollMs = v * 1000) },
  quarantine_after: { of: (c) => c.quarantineAfter, put: (c, v) => void (c.quarantineAfter = v) },
  quarantine_s: { of: (c) => c.quarantineMs / 1000, put: (c, v) => void (c.quarantineMs = v * 1000) },
  fair_share: { of: (c) => (c.fairShare.on ? 1 : 0), put: (c, v) => void (c.fairShare.on = v === 1) },
  fair_share_window_s: { of: (c) => c.fairShare.windowMs / 1000, put: (c, v) => void (c.fairShare.windowMs = v * 1000) },
  upload_file_max_mb: { of: (c) => c.uploadFileMaxBytes / MB, put: (c, v) => void (c.uploadFileMaxBytes = Math.round(v * MB)) },
  upload_import_max_mb: { of: (c) => c.uploadImportMaxBytes / MB, put: (c, v) => void (c.uploadImportMaxBytes = Math.round(v * MB)) },
};

/** A numeric setting's default, from the shared table. */
function defaultOf(key: NumericSettingKey): number {
  const def = FARM_SETTINGS[key];
  if (def.type !== 'number') throw new Error(`farm setting ${key} is not a number`);
  return def.default;
}

/** The config with the settings' defaults, then `over`; its own retry object (the live config is changed in place). */
export function schedulerConfig(outputRoot: string, over: Partial<SchedulerConfig> = {}): SchedulerConfig {
  const config: SchedulerConfig = {
    outputRoot,
    probeIntervalMs: 0,
    probeTimeoutMs: 1_500,
    objectInfoTimeoutMs: 15_000,
    unhealthyAfter: 2,
    offlineAfter: 5,
    historyPollMs: 0,
    stallTimeoutS: 0,
    graceMs: 0,
    interruptWaitMs: 30_000,
    requestTimeoutMs: 10_000,
    retry: { maxAttempts: 0, baseMs: 0, capMs: 0 },
    quarantineAfter: 0,
    quarantineMs: 0,
    candidateScan: 512,
    starvationMs: 0,
    progressSaveMs: 1_000,
    wsGiveUpMs: 30_000,
    fairShare: { on: false, windowMs: 0, weights: {} },
    uploadFileMaxBytes: 0,
    uploadImportMaxBytes: 0,
  };
  for (const key of Object.keys(SETTING_FIELDS) as NumericSettingKey[]) SETTING_FIELDS[key].put(config, defaultOf(key));
  return { ...config, ...over, retry: { ...(over.retry ?? config.retry) }, fairShare: { ...(over.fairShare ?? config.fairShare) } };
}
