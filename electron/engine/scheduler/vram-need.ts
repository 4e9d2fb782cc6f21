/**
 * The learned VRAM need (issue 28), pure: from a template version's measured runs, the number
 * admission counts for a job of a given size on a given GPU model — the declared one until enough
 * good runs are known, then their p95 plus a margin; never below what an out-of-memory run was known
 * to need more than. The operator's pin wins: `declared` always trusts the file.
 *
 * Sizes: a run's need grows with width × height × batch × frames (`pixels`; 0 when the workflow
 * does not say, e.g. an img2img whose size is its input image's). Runs of the same size make one
 * bucket; a job whose own bucket has too few runs borrows the smallest larger bucket that has
 * enough (a bigger image never needs less). Out-of-memory floors: a GPU model with a learned number
 * is raised only by its own OOMs (what was measured there beats what is inferred from another card);
 * one without raises the declared number by the OOMs of every GPU model — the same weights and
 * activations fail the same way on another card of the same size.
 */
import type { VramNeedChoice, VramPin } from '../../../shared/vram-need.js';
import type { LearnedRow } from '../store/vram-sample-store.js';

export interface LearnRules {
  /** Good runs of a bucket before its p95 replaces the declared number (`vram_learn_after`). */
  learnAfter: number;
  /** Added on top of the p95, in percent (`vram_learn_margin_pct`). */
  marginPct: number;
}

/** What admission knows of one job's VRAM: the declared number and, per GPU model, the learned choice. */
export interface JobVram {
  declaredGb: number;
  /** GPU model → the number to use there; a GPU model not listed uses `otherGpus`. */
  byGpu: Readonly<Record<string, VramNeedChoice>>;
  /** For a GPU model no run was measured on: the declared number, raised by any out-of-memory floor. */
  otherGpus: VramNeedChoice;
}

/** The p-th percentile (nearest rank) of unsorted numbers; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/** The learned need for a job of `pixels` on one GPU model's good runs, or null when too few are known. */
function learnedFor(
  ok: readonly LearnedRow[],
  pixels: number,
  rules: LearnRules,
  pin: VramPin,
): { gb: number; samples: number } | null {
  const enough = pin === 'learned' ? 1 : Math.max(1, rules.learnAfter);
  const buckets = new Map<number, number[]>();
  for (const r of ok) {
    const b = buckets.get(r.pixels);
    if (b) b.push(r.needGb);
    else buckets.set(r.pixels, [r.needGb]);
  }
  const sizes = [...buckets.keys()].filter((p) => p >= pixels).sort((a, b) => a - b);
  for (const size of sizes) {
    const needs = buckets.get(size) as number[];
    if (needs.length >= enough)
      return { gb: percentile(needs, 95) * (1 + rules.marginPct / 100), samples: needs.length };
  }
  return null;
}

/** Every out-of-memory floor for a job of `pixels`: runs that size or smaller failed needing more than this. */
function oomFloor(rows: readonly LearnedRow[], pixels: number, rules: LearnRules): { gb: number; count: number } {
  let gb = 0;
  let count = 0;
  for (const r of rows)
    if (r.outcome === 'oom' && r.pixels <= pixels) {
      count++;
      gb = Math.max(gb, r.needGb * (1 + rules.marginPct / 100));
    }
  return { gb, count };
}

/** The job's VRAM on every GPU model its template was measured on (rows: vramSamplesOf). */
export function jobVram(
  declaredGb: number,
  pixels: number,
  rows: readonly LearnedRow[],
  rules: LearnRules,
  pin: VramPin,
): JobVram {
  const declared = (samples: number, floor = { gb: 0, count: 0 }): VramNeedChoice => ({
    gb: Math.max(declaredGb, floor.gb),
    source: 'declared',
    samples,
    ooms: floor.gb > declaredGb ? floor.count : 0,
  });
  if (pin === 'declared' || rows.length === 0) return { declaredGb, byGpu: {}, otherGpus: declared(0) };
  const floor = oomFloor(rows, pixels, rules);
  const byGpu: Record<string, VramNeedChoice> = {};
  for (const gpu of new Set(rows.map((r) => r.gpu))) {
    const own = rows.filter((r) => r.gpu === gpu);
    const ok = own.filter((r) => r.outcome === 'ok');
    const learned = learnedFor(ok, pixels, rules, pin);
    const ownFloor = oomFloor(own, pixels, rules);
    byGpu[gpu] = learned
      ? {
          gb: Math.max(learned.gb, ownFloor.gb),
          source: 'learned',
          samples: learned.samples,
          ooms: ownFloor.gb > learned.gb ? ownFloor.count : 0,
        }
      : declared(ok.length, floor);
  }
  return { declaredGb, byGpu, otherGpus: declared(0, floor) };
}

/** The choice for one GPU model (null name: the GPU is not known yet — the declared number, floors included). */
export function vramOn(v: JobVram, gpu: string | null): VramNeedChoice {
  return (gpu !== null ? v.byGpu[gpu] : undefined) ?? v.otherGpus;
}

/**
 * The one number admission counts for a job on an instance: the workstation's override for the
 * stage, else what was learned for its GPU model (or the declared number, raised by OOM floors).
 */
export function needGbOn(
  job: { stage: string; vramGb: number; vram?: JobVram | undefined },
  inst: { vramOverrides: Readonly<Record<string, number>>; gpuName?: string | null | undefined },
): number {
  return inst.vramOverrides[job.stage] ?? (job.vram ? vramOn(job.vram, inst.gpuName ?? null).gb : job.vramGb);
}
