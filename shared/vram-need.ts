/**
 * Learned VRAM need (issue 28): what the farm measured a template version needing on each GPU model,
 * beside what the template declares, and which of the two admission uses. The engine measures
 * (pools/comfy-lan/vram-sampler.ts) and decides (scheduler/vram-need.ts); every client shows this.
 */

/** The operator's pin per template name: `auto` learns, `declared` always trusts the file, `learned` uses the first good sample. */
export const VRAM_PINS = ['auto', 'declared', 'learned'] as const;
export type VramPin = (typeof VRAM_PINS)[number];

/** Which number admission uses for a job on one GPU model, and why. */
export interface VramNeedChoice {
  /** GB admission counts. */
  gb: number;
  source: 'declared' | 'learned' | 'override';
  /** Good runs the learned number is made of (0 when declared). */
  samples: number;
  /** Out-of-memory failures that raised it (each says "needed more than X"). */
  ooms: number;
}

/** One GPU model's row in `templates.vram`: declared beside learned. */
export interface TemplateGpuVram {
  gpu: string;
  /** Good runs measured on this GPU model (all sizes). */
  samples: number;
  /** The p95 of those runs' measured need, GB (null: none yet). */
  p95Gb: number | null;
  /** The highest measured need (GB; null: none). */
  maxGb: number | null;
  /** Out-of-memory failures there, and the most a failed run was known to need more than. */
  ooms: number;
  oomAboveGb: number | null;
  /** What admission uses for the template's own size on this GPU model now. */
  use: VramNeedChoice;
}

/** `templates.vram`: a template's declared and learned VRAM, per GPU model. */
export interface TemplateVramView {
  name: string;
  version: number;
  templateId: number;
  declaredGb: number;
  pin: VramPin;
  /** Runs needed before the learned number replaces the declared one (farm setting `vram_learn_after`). */
  learnAfter: number;
  /** Margin added on top of the learned p95, in percent (farm setting `vram_learn_margin_pct`). */
  marginPct: number;
  gpus: TemplateGpuVram[];
}

/** "7.4 GB learned from 23 runs on RTX 4090; declared 10" — the words `jobs why` and the views use. */
export function describeVramChoice(c: VramNeedChoice, gpu: string, declaredGb: number): string {
  const gb = round1(c.gb);
  const short = gpu.replace(/^NVIDIA\s+(GeForce\s+)?/i, '');
  if (c.source === 'override')
    return `needs ${gb} GB on ${short} (this workstation's override); declared ${declaredGb}`;
  if (c.source === 'declared') {
    const raised = c.ooms ? `, raised by ${c.ooms} out-of-memory failure${c.ooms === 1 ? '' : 's'}` : '';
    return `needs ${gb} GB on ${short} (declared${raised}; ${c.samples} run${c.samples === 1 ? '' : 's'} measured)`;
  }
  return `needs ${gb} GB learned from ${c.samples} run${c.samples === 1 ? '' : 's'} on ${short}; declared ${declaredGb}`;
}

export function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
