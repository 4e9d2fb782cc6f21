/**
 * Which runs have their VRAM read (issue 30 item 2). Reading a running prompt's /system_stats ~3
 * times a second was most of the engine's requests at 200 GPUs; once a bucket's learned need is
 * trusted with room to spare, reading every run of it adds little. So per bucket — template
 * version × GPU model × job size, the key the learned need uses (scheduler/vram-need.ts) — every
 * run is read until the bucket has TRUSTED_AFTER × `vram_learn_after` good runs among the rows
 * learning reads, then one run in SAMPLE_ONE_IN (a counter per bucket, deterministic). A run of a
 * bucket not learned that far is always read. Pure but for the counters.
 */
import type { LearnedRow } from '../store/vram-sample-store.js';
import { percentile } from '../scheduler/vram-need.js';

/** Good runs of a bucket, in multiples of `vram_learn_after`, before its runs are sampled. */
export const TRUSTED_AFTER = 4;
/** Once trusted, one run of the bucket in this many is read. */
export const SAMPLE_ONE_IN = 4;

/** The good runs of one bucket among a template version's rows, and their p95 need (GB). */
export function bucketOf(rows: readonly LearnedRow[], gpu: string, pixels: number): { runs: number; p95Gb: number } {
  const needs: number[] = [];
  for (const r of rows) if (r.outcome === 'ok' && r.gpu === gpu && r.pixels === pixels) needs.push(r.needGb);
  return { runs: needs.length, p95Gb: percentile(needs, 95) };
}

/** The per-bucket counters of the runs left unread. */
export class VramSamplingPlan {
  private readonly counters = new Map<string, number>();

  /** Whether to read this run of `key`, whose bucket has `runs` good runs: every run until trusted, then every SAMPLE_ONE_IN-th. */
  sample(key: string, runs: number, learnAfter: number): boolean {
    if (runs < TRUSTED_AFTER * Math.max(1, learnAfter)) return true;
    const n = ((this.counters.get(key) ?? 0) + 1) % SAMPLE_ONE_IN;
    this.counters.set(key, n);
    return n === 0;
  }

  /**
   * Whether to read a run of a template version's bucket, from the rows learning reads (newest
   * first); one not read comes with its bucket's p95 need. An unknown GPU model is always read.
   */
  choose(
    rows: readonly LearnedRow[],
    templateId: number,
    gpu: string | null,
    pixels: number,
    learnAfter: number,
  ): { sample: boolean; knownGb: number | null } {
    if (gpu === null) return { sample: true, knownGb: null };
    const bucket = bucketOf(rows, gpu, pixels);
    const sample = this.sample(`${templateId}|${gpu}|${pixels}`, bucket.runs, learnAfter);
    return { sample, knownGb: sample ? null : bucket.p95Gb };
  }
}
