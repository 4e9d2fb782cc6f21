/**
 * A template's history as the Templates view plots it (issue 28 item 6): each measured run's VRAM
 * against time and each completed run's length per GPU model, beside the figures the farm learned
 * from them (`templates.vram`, `templates.runTimes`, carried whole so the plot's lines are the
 * table's numbers). Bounded: the newest `limit` points of each, with how many there are in all.
 */
import type { TemplateRunTimeView } from './template-run-time.js';
import type { TemplateVramView } from './vram-need.js';

/** The most points of each kind `templates.history` returns for a template (the newest). */
export const TEMPLATE_HISTORY_LIMIT = 500;

/** One measured LAN attempt of the template version (a `vram_samples` row). */
export interface TemplateVramPoint {
  /** When the attempt ended (ms since the epoch). */
  at: number;
  /** The GPU model as /system_stats names it. */
  gpu: string;
  /** `ok`: the run needed `needGb`; `oom`: it ran out of memory, needing more than `needGb`. */
  outcome: 'ok' | 'oom';
  /** What learning counts (GB): the p95 of these (+ margin) is the learned need. */
  needGb: number;
  /** The peak our prompt added over the idle baseline (GB). */
  addedGb: number;
  /** Its model was already loaded when it started. */
  warm: boolean;
}

/** One completed run of the template version, as the run-time model counts it. */
export interface TemplateRunPoint {
  /** When the prompt reached its GPU (its real start; else its dispatch), ms since the epoch. */
  at: number;
  gpu: string;
  /** From its real start to its end, ms. */
  ms: number;
  /** It loaded its checkpoint first (a cold start): kept out of the median and p90. */
  cold: boolean;
}

/** `templates.history`: what the Templates view plots for a template (its latest version). */
export interface TemplateHistoryView {
  name: string;
  version: number;
  templateId: number;
  /** The most points of each kind returned (TEMPLATE_HISTORY_LIMIT). */
  limit: number;
  /** Declared beside learned, per GPU model: the plot's horizontal lines. */
  vram: TemplateVramView;
  /** Every measured run of the version (OOMs included); `vramPoints` are the newest `limit` of them. */
  vramTotal: number;
  /** Oldest first. */
  vramPoints: TemplateVramPoint[];
  /** The median, p90 and cold starts per GPU model: the plot's marks. */
  runTimes: TemplateRunTimeView;
  /** The version's completed runs in the run-time model's window; `runPoints` are the newest `limit`. */
  runTotal: number;
  /** Oldest first. */
  runPoints: TemplateRunPoint[];
}
