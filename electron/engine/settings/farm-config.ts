/**
 * The scheduler's tunables. The operator's ones are farm settings (shared/farm-settings.ts: their
 * defaults, units and bounds live there, once); setting-entries.ts says which field of this config
 * each one sets. The engine applies the settings to one live SchedulerConfig object in place, and every
 * module keeps that object and reads `config.x` at each decision — so a changed setting applies at
 * the next decision without a restart. Tests and benchmarks shorten the times with `over`.
 */
import { FARM_SETTING_KEYS, FARM_SETTINGS } from '../../../shared/farm-settings.js';
import type { SchedulerConfig } from './config-shape.js';
import { entryOf } from './setting-entries.js';

export type { RetryPolicy, SchedulerConfig } from './config-shape.js';

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
    objectInfoMaxBytes: 0,
    outputMaxBytes: 0,
    downloadMinMs: 60_000,
    stopGraceMs: 10_000,
    storageRetryMs: 2_000,
    storageRetryCapMs: 30_000,
    socketWaitMs: 5_000,
    preparationMs: 120_000,
    prefetch: true,
    burstAfterS: 0,
    burstBudgetUsdPerDay: 0,
    runpodPollMs: 2_000,
    leaseMs: 0,
    failOnIllegalTransition: false,
    fairShare: { on: false, windowMs: 0, weights: {} },
    vramLearn: { learnAfter: 0, marginPct: 0 },
    // About 3 Hz: a peak lasts seconds on a real GPU; cheap for the server (one small JSON answer).
    vramSampleMs: 333,
  };
  // Each live setting's default, from the shared table (a folder's null: the engine's own, given above).
  for (const key of FARM_SETTING_KEYS) {
    const dflt = FARM_SETTINGS[key].default;
    if (dflt !== null) entryOf(key).live?.put(config, dflt);
  }
  return {
    ...config,
    ...over,
    retry: { ...(over.retry ?? config.retry) },
    fairShare: { ...(over.fairShare ?? config.fairShare) },
    vramLearn: { ...(over.vramLearn ?? config.vramLearn) },
  };
}
