/**
 * What the engine does with each farm setting. The shared table (shared/farm-settings.ts) says what
 * a setting is — its type, unit, default, bounds; this one, per key, what follows from it here:
 * - `live`: where the running farm's SchedulerConfig keeps it, in the setting's unit. The scheduler
 *   and its runners read `config.x` at each decision; LiveSettings writes the value in force into
 *   that one object. A key without `live` is read through the settings reader at each use
 *   (`ctx.settings.get(key)`, setting-reader.ts), so every process applies the same value.
 * - `changed`: what else changes with it, in the transaction that sets or resets it (given the value
 *   set, or the table's default on a reset); returns the jobs whose rows changed, to announce.
 * Every key has an entry, so a new setting in the shared table is a decision made here, not a
 * reader added somewhere else.
 */
import { parseProjectWeights, type FarmSettingKey, type FarmSettingValues } from '../../../shared/farm-settings.js';
import type { Db } from '../store/database.js';
import { setOpenJobsMaxAttempts } from '../store/job-store.js';
import type { SchedulerConfig } from './config-shape.js';
import { rememberRoot } from './output-roots.js';

/** A setting's value in force: a folder is a path (unset: the engine's own folder). */
export type SettingValue<K extends FarmSettingKey> = Exclude<FarmSettingValues[K], null>;

export interface SettingEntry<K extends FarmSettingKey> {
  live?: { of(c: SchedulerConfig): SettingValue<K>; put(c: SchedulerConfig, v: SettingValue<K>): void };
  changed?(db: Db, value: FarmSettingValues[K], now: number): string[];
}

const MB = 1024 * 1024;
const GB = 1024 * MB;

/** The weights as project_weights text (JSON, which the setting's format accepts); '' when none. */
function weightsText(weights: Record<string, number>): string {
  return Object.keys(weights).length ? JSON.stringify(weights) : '';
}

export const SETTING_ENTRIES: { readonly [K in FarmSettingKey]: SettingEntry<K> } = {
  retry_attempts: {
    live: { of: (c) => c.retry.maxAttempts, put: (c, v) => void (c.retry.maxAttempts = v) },
    // Every unfinished job's attempt budget is the setting in force.
    changed: (db, v) => setOpenJobsMaxAttempts(db, v),
  },
  retry_base_s: { live: { of: (c) => c.retry.baseMs / 1000, put: (c, v) => void (c.retry.baseMs = v * 1000) } },
  retry_cap_s: { live: { of: (c) => c.retry.capMs / 1000, put: (c, v) => void (c.retry.capMs = v * 1000) } },
  stall_timeout_s: { live: { of: (c) => c.stallTimeoutS, put: (c, v) => void (c.stallTimeoutS = v) } },
  grace_s: { live: { of: (c) => c.graceMs / 1000, put: (c, v) => void (c.graceMs = v * 1000) } },
  starvation_s: { live: { of: (c) => c.starvationMs / 1000, put: (c, v) => void (c.starvationMs = v * 1000) } },
  lease_s: { live: { of: (c) => c.leaseMs / 1000, put: (c, v) => void (c.leaseMs = v * 1000) } },
  probe_interval_s: {
    live: { of: (c) => c.probeIntervalMs / 1000, put: (c, v) => void (c.probeIntervalMs = v * 1000) },
  },
  history_poll_s: { live: { of: (c) => c.historyPollMs / 1000, put: (c, v) => void (c.historyPollMs = v * 1000) } },
  quarantine_after: { live: { of: (c) => c.quarantineAfter, put: (c, v) => void (c.quarantineAfter = v) } },
  quarantine_s: { live: { of: (c) => c.quarantineMs / 1000, put: (c, v) => void (c.quarantineMs = v * 1000) } },
  object_info_max_mb: {
    live: { of: (c) => c.objectInfoMaxBytes / MB, put: (c, v) => void (c.objectInfoMaxBytes = Math.round(v * MB)) },
  },
  output_max_gb: {
    live: { of: (c) => c.outputMaxBytes / GB, put: (c, v) => void (c.outputMaxBytes = Math.round(v * GB)) },
  },
  prefetch: { live: { of: (c) => (c.prefetch ? 1 : 0), put: (c, v) => void (c.prefetch = v === 1) } },
  fair_share: { live: { of: (c) => (c.fairShare.on ? 1 : 0), put: (c, v) => void (c.fairShare.on = v === 1) } },
  fair_share_window_s: {
    live: { of: (c) => c.fairShare.windowMs / 1000, put: (c, v) => void (c.fairShare.windowMs = v * 1000) },
  },
  project_weights: {
    live: {
      of: (c) => weightsText(c.fairShare.weights),
      put: (c, v) => {
        // A stored value passed the text format as it was read; a fresh object, never the base's.
        const parsed = parseProjectWeights(v);
        c.fairShare.weights = parsed.ok ? parsed.weights : {};
      },
    },
  },
  // The upload limits are checked by whichever process takes the upload (serve, the app, a CLI import): read at each use.
  // Read by the forecaster at each late turn (forecast/forecaster.ts): nothing in the farm to update.
  forecast_bump_late: {},
  upload_file_max_mb: {},
  upload_import_max_mb: {},
  upload_person_max_mb: {},
  upload_unused_keep_h: {},
  burst_after_s: { live: { of: (c) => c.burstAfterS, put: (c, v) => void (c.burstAfterS = v) } },
  vram_learn_after: { live: { of: (c) => c.vramLearn.learnAfter, put: (c, v) => void (c.vramLearn.learnAfter = v) } },
  vram_learn_margin_pct: {
    live: { of: (c) => c.vramLearn.marginPct, put: (c, v) => void (c.vramLearn.marginPct = v) },
  },
  burst_budget_usd_per_day: {
    live: { of: (c) => c.burstBudgetUsdPerDay, put: (c, v) => void (c.burstBudgetUsdPerDay = v) },
  },
  output_root: {
    live: { of: (c) => c.outputRoot, put: (c, v) => void (c.outputRoot = v) },
    // Files written under an earlier root stay servable: every root set is remembered.
    changed: (db, v, now) => {
      if (v !== null) rememberRoot(db, v, now);
      return [];
    },
  },
  // Read at each freeze and verify.
  releases_root: {},
};

/** One entry with its value type widened: how the settings module walks every key (values are checked per key as they are read). */
export interface AnyEntry {
  live?: { of(c: SchedulerConfig): number | string; put(c: SchedulerConfig, v: number | string): void };
  changed?(db: Db, value: number | string | null, now: number): string[];
}

export function entryOf(key: FarmSettingKey): AnyEntry {
  return SETTING_ENTRIES[key] as AnyEntry;
}
