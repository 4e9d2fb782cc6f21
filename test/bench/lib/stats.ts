/** Small statistics and timing helpers for the benchmarks (no dependencies beyond Node). */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Absolute milliseconds that two processes on the same machine can compare (sub-ms resolution). */
export function absNow(): number {
  return performance.timeOrigin + performance.now();
}

/** The q-quantile (0..1) of a sample, nearest-rank on a sorted copy; NaN for an empty sample. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return s[i] as number;
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

export function sum(values: readonly number[]): number {
  let t = 0;
  for (const v of values) t += v;
  return t;
}

export function mean(values: readonly number[]): number {
  return values.length ? sum(values) / values.length : Number.NaN;
}

export function summary(values: readonly number[]): {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
} {
  return {
    n: values.length,
    p50: round(quantile(values, 0.5)),
    p90: round(quantile(values, 0.9)),
    p99: round(quantile(values, 0.99)),
    max: round(values.length ? Math.max(...values) : Number.NaN),
    mean: round(mean(values)),
  };
}

export function round(v: number, digits = 2): number {
  if (!Number.isFinite(v)) return v;
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

/** A full garbage collection now (to read the heap after one), without --expose-gc on the command line. */
export function gcNow(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

export const MB = 1024 * 1024;

export function mb(bytes: number): number {
  return round(bytes / MB, 1);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `predicate` every `everyMs` until it holds or `timeoutMs` passes; returns whether it held. */
export async function until(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 20,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return true;
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
}

/** Samples a value every `everyMs` until stopped; returns the samples. */
export function sampler(everyMs: number, read: () => number): { stop(): number[] } {
  const samples: number[] = [read()];
  const t = setInterval(() => samples.push(read()), everyMs);
  return {
    stop() {
      clearInterval(t);
      samples.push(read());
      return samples;
    },
  };
}
