/**
 * Which runs have their VRAM read (issue 30 item 2). Reading a running prompt's /system_stats ~3
 * times a second was most of the engine's requests at 200 GPUs; once a bucket's learned need is
 * trusted with room to spare, reading every run of it adds little. So per bucket — template
 * version × GPU model × job size, the key the learned need uses (scheduler/vram-need.ts) — runs
 * are read until the bucket has TRUSTED_AFTER × `vram_learn_after` good runs among the rows
 * learning reads, then one run in SAMPLE_ONE_IN (a counter per bucket, deterministic).
 *
 * Counted with the runs being read now, not only the stored ones: a farm's first wave starts every
 * GPU before any run of a new bucket has ended, and read all 200 at 200 GPUs when 20 teach it
 * (~3,400 /system_stats for 600 jobs, a quarter of the engine's requests). So while a bucket
 * learns, only as many runs are read at once as it still needs good runs, SPARE more (a run may
 * end too short to count, or fail; its place is read again by the next start); once trusted, at
 * most READ_AT_ONCE of its runs are read at a time however many GPUs run it. Pure but for the
 * counters; a run read gives its place back through `done` when it ends.
 *
 * A bucket whose read runs keep ending too short to be counted (a prompt under ~1 s is read once
 * or not at all, and a good run needs three reads) teaches nothing by being read: after
 * SHORT_STREAK such ends in a row only one run in SHORT_ONE_IN is read — enough to see its runs
 * grow longer — until one is counted again.
 */
import type { LearnedRow } from '../store/vram-sample-store.js';
import { percentile } from '../scheduler/vram-need.js';

/** Good runs of a bucket, in multiples of `vram_learn_after`, before its runs are sampled. */
export const TRUSTED_AFTER = 4;
/** Once trusted, one run of the bucket in this many is read. */
export const SAMPLE_ONE_IN = 4;
/** While a bucket learns, runs read at once beyond the good runs it still needs. */
export const SPARE = 2;
/** Once trusted, runs of one bucket read at a time, at most (8 reads of ~3 a second keep it current). */
export const READ_AT_ONCE = 8;

/** Read runs of a bucket ending too short to count, in a row, before its runs are read one in SHORT_ONE_IN. */
export const SHORT_STREAK = 4;
/** A bucket whose runs end too short to count: one run in this many is read. */
export const SHORT_ONE_IN = 16;

/** How a read run ended, for the plan: counted (a row stored), too short to count, or anything else (failed, stopped). */
export type ReadEnd = 'counted' | 'too-short' | 'other';

/** A run's plan: read or not; not read, its bucket's p95 need; read, `done` when it ends (gives its place back). */
export interface RunPlan {
  sample: boolean;
  knownGb: number | null;
  done?: (end: ReadEnd) => void;
}

/** The good runs of one bucket among a template version's rows, and their p95 need (GB). */
export function bucketOf(rows: readonly LearnedRow[], gpu: string, pixels: number): { runs: number; p95Gb: number } {
  const needs: number[] = [];
  for (const r of rows) if (r.outcome === 'ok' && r.gpu === gpu && r.pixels === pixels) needs.push(r.needGb);
  return { runs: needs.length, p95Gb: percentile(needs, 95) };
}

/** The per-bucket counters of the runs left unread. */
export class VramSamplingPlan {
  private readonly counters = new Map<string, number>();
  /** Runs being read now, per bucket. */
  private readonly reading = new Map<string, number>();
  /** Read runs ended too short to count, in a row, per bucket. */
  private readonly short = new Map<string, number>();

  /**
   * Whether to read this run of `key`, whose bucket has `runs` good runs: until trusted, while the
   * runs read now are fewer than the good runs still needed (SPARE more); then every
   * SAMPLE_ONE_IN-th, at most READ_AT_ONCE at a time. A run read takes a place, given back only
   * through the `done` that `choose` hands out with it (so nothing else may take one).
   */
  private sample(key: string, runs: number, learnAfter: number): boolean {
    const trustedAt = TRUSTED_AFTER * Math.max(1, learnAfter);
    const now = this.reading.get(key) ?? 0;
    const oneIn = (every: number): boolean => {
      const n = ((this.counters.get(key) ?? 0) + 1) % every;
      this.counters.set(key, n);
      return n === 0 && now < READ_AT_ONCE;
    };
    let read: boolean;
    if ((this.short.get(key) ?? 0) >= SHORT_STREAK) read = oneIn(SHORT_ONE_IN);
    else if (runs < trustedAt) read = now < trustedAt - runs + SPARE;
    else read = oneIn(SAMPLE_ONE_IN);
    if (read) this.reading.set(key, now + 1);
    return read;
  }

  /** A run of `key` that was read has ended: its place goes to the next start. */
  private done(key: string, end: ReadEnd): void {
    const now = this.reading.get(key) ?? 0;
    if (now <= 1) this.reading.delete(key);
    else this.reading.set(key, now - 1);
    if (end === 'too-short') this.short.set(key, (this.short.get(key) ?? 0) + 1);
    else if (end === 'counted') this.short.delete(key);
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
  ): RunPlan {
    if (gpu === null) return { sample: true, knownGb: null };
    const bucket = bucketOf(rows, gpu, pixels);
    const key = `${templateId}|${gpu}|${pixels}`;
    if (!this.sample(key, bucket.runs, learnAfter)) return { sample: false, knownGb: bucket.p95Gb };
    let given = false;
    // Once per run, however often its end is reported.
    const done = (end: ReadEnd): void => {
      if (given) return;
      given = true;
      this.done(key, end);
    };
    return { sample: true, knownGb: null, done };
  }
}
