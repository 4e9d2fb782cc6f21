/**
 * Every statement on `vram_samples` and `template_vram_pins`: what each measured attempt needed (or,
 * out of memory, needed more than), and the operator's pin per template name. Rows are the learned
 * VRAM's whole memory: scheduler/vram-need.ts turns them into the number admission uses.
 */
import type { TemplateVramPoint } from '../../../shared/template-history.js';
import { VRAM_PINS, type VramPin } from '../../../shared/vram-need.js';
import type { Db } from './database.js';
import { all, one, run } from './statements.js';

export interface VramSample {
  attemptId: string;
  templateId: number;
  /** The GPU model, as /system_stats names it ("NVIDIA GeForce RTX 4090"). */
  gpu: string;
  /** width × height × batch × frames of the job (0: not known from the workflow). */
  pixels: number;
  outcome: 'ok' | 'oom';
  /** ok: what the run needed (GB); oom: what it was known to need more than. */
  needGb: number;
  /** The highest ComfyUI memory while it ran, above the idle baseline before it (GB). */
  addedGb: number;
  peakGb: number;
  baselineGb: number;
  /** The most other processes held on that GPU meanwhile (GB), kept apart from ours. */
  otherGb: number;
  /** Its model was already loaded there when it started. */
  warm: boolean;
  /** /system_stats answers the peak was taken from. */
  reads: number;
  at: number;
}

interface Row {
  template_id: number;
  gpu: string;
  pixels: number;
  outcome: string;
  need_gb: number;
}

interface PointRow {
  at: number;
  gpu: string;
  outcome: string;
  need_gb: number;
  added_gb: number;
  warm: number;
}

/** What learning reads of a sample. */
export type LearnedRow = Pick<VramSample, 'gpu' | 'pixels' | 'outcome' | 'needGb'>;

const SQL_ADD = `INSERT INTO vram_samples (attempt_id, template_id, gpu, pixels, outcome, need_gb, added_gb, peak_gb, baseline_gb, other_gb, warm, reads, at)
  VALUES (@attemptId, @templateId, @gpu, @pixels, @outcome, @needGb, @addedGb, @peakGb, @baselineGb, @otherGb, @warm, @reads, @at)`;
/** How many of a template version's newest samples learning reads: the need of the last few hundred runs is the need. */
export const LEARNED_ROWS = 500;
/** A template version's newest samples, newest first (bounded: LEARNED_ROWS). */
const SQL_OF_TEMPLATE = `SELECT template_id, gpu, pixels, outcome, need_gb FROM vram_samples
  WHERE template_id = ? ORDER BY id DESC LIMIT ${LEARNED_ROWS}`;
/** A template version's newest measured runs, for the Templates view's plot (newest first; bounded by the caller). */
const SQL_POINTS_OF_TEMPLATE = `SELECT at, gpu, outcome, need_gb, added_gb, warm FROM vram_samples
  WHERE template_id = ? ORDER BY id DESC LIMIT ?`;
/** How many runs of a template version were measured (the plot says "newest 500 of N"; the index covers it). */
const SQL_COUNT_OF_TEMPLATE = 'SELECT COUNT(*) AS n FROM vram_samples WHERE template_id = ?';
const SQL_PIN_OF = 'SELECT pin FROM template_vram_pins WHERE name = ?';
const SQL_PIN_SET = `INSERT INTO template_vram_pins (name, pin, actor, at) VALUES (?, ?, ?, ?)
  ON CONFLICT (name) DO UPDATE SET pin = excluded.pin, actor = excluded.actor, at = excluded.at`;
const SQL_PIN_CLEAR = 'DELETE FROM template_vram_pins WHERE name = ?';

export function addVramSample(db: Db, s: VramSample): void {
  run(db, SQL_ADD, { ...s, warm: s.warm ? 1 : 0 });
}

export function vramSamplesOf(db: Db, templateId: number): LearnedRow[] {
  return all<Row>(db, SQL_OF_TEMPLATE, templateId).map((r) => ({
    gpu: r.gpu,
    pixels: r.pixels,
    outcome: r.outcome === 'oom' ? 'oom' : 'ok',
    needGb: r.need_gb,
  }));
}

/** The newest `limit` measured runs of a template version, oldest first (as a plot draws them), and how many there are in all. */
export function vramPointsOf(
  db: Db,
  templateId: number,
  limit: number,
): { total: number; points: TemplateVramPoint[] } {
  const rows = all<PointRow>(db, SQL_POINTS_OF_TEMPLATE, templateId, limit);
  const points = rows.reverse().map(
    (r): TemplateVramPoint => ({
      at: Number(r.at),
      gpu: r.gpu,
      outcome: r.outcome === 'oom' ? 'oom' : 'ok',
      needGb: r.need_gb,
      addedGb: r.added_gb,
      warm: Boolean(r.warm),
    }),
  );
  return { total: Number(one<{ n: number }>(db, SQL_COUNT_OF_TEMPLATE, templateId)?.n ?? 0), points };
}

export function vramPinOf(db: Db, name: string): VramPin {
  const pin = one<{ pin: string }>(db, SQL_PIN_OF, name)?.pin;
  return (VRAM_PINS as readonly string[]).includes(pin ?? '') ? (pin as VramPin) : 'auto';
}

/** `auto` removes the pin: the template learns again. */
export function setVramPin(db: Db, name: string, pin: VramPin, actor: string, now: number): void {
  if (pin === 'auto') run(db, SQL_PIN_CLEAR, name);
  else run(db, SQL_PIN_SET, name, pin, actor, now);
}
