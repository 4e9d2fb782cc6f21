/**
 * When the event loop was blocked, not only how much: a chain of 5 ms timers records each turn's
 * lateness with its time (absolute ms, comparable with the simulators' events), so a run's loop
 * delay can be split after the fact into phases — the start-up burst until every GPU is busy, and
 * the steady state after it — and its worst moments listed. monitorEventLoopDelay measures the
 * same thing (a 5 ms libuv timer's lateness) but keeps only one histogram for the whole run.
 */
import { absNow, quantile, round } from './stats.js';

const RESOLUTION_MS = 5;

export interface LagSample {
  /** When the late timer fired (absolute ms). */
  t: number;
  /** The same moment on the monotonic clock, µs (V8's profile samples are stamped on it). */
  mono: number;
  /** How late it fired, ms. */
  lagMs: number;
}

export interface LagRecorder {
  stop(): LagSample[];
}

export function recordLoopLag(): LagRecorder {
  const samples: LagSample[] = [];
  let due = performance.now() + RESOLUTION_MS;
  let timer: NodeJS.Timeout | null = null;
  const next = (): void => {
    timer = setTimeout(() => {
      const now = performance.now();
      samples.push({ t: absNow(), mono: Number(process.hrtime.bigint() / 1000n), lagMs: Math.max(0, now - due) });
      due = now + RESOLUTION_MS;
      next();
    }, RESOLUTION_MS);
  };
  next();
  return {
    stop() {
      if (timer) clearTimeout(timer);
      return samples;
    },
  };
}

export interface LagPhase {
  samples: number;
  p99Ms: number;
  maxMs: number;
  /** Turns late by ≥ 50 ms, and the time they cost together. */
  long: number;
  longMs: number;
}

export function lagPhase(samples: readonly LagSample[], from: number, to: number): LagPhase {
  const lags = samples.filter((s) => s.t >= from && s.t < to).map((s) => s.lagMs);
  const long = lags.filter((l) => l >= 50);
  return {
    samples: lags.length,
    p99Ms: round(quantile(lags, 0.99), 1),
    maxMs: round(lags.length ? Math.max(...lags) : Number.NaN, 1),
    long: long.length,
    longMs: round(
      long.reduce((a, b) => a + b, 0),
      0,
    ),
  };
}

/** "p99 131 ms, max 420 ms, 12 turns ≥ 50 ms (1,310 ms)". */
export function lagPhaseLine(p: LagPhase): string {
  if (p.samples === 0) return 'no samples';
  return `p99 ${p.p99Ms} ms, max ${p.maxMs} ms, ${p.long} turns ≥ 50 ms (${p.longMs} ms)`;
}

/** The `n` latest turns, as "+1.20 s 180 ms" from `origin`, in time order. */
export function worstTurns(samples: readonly LagSample[], origin: number, n = 6): string {
  return [...samples]
    .sort((a, b) => b.lagMs - a.lagMs)
    .slice(0, n)
    .sort((a, b) => a.t - b.t)
    .map((s) => `+${round((s.t - origin) / 1000, 2)} s ${round(s.lagMs, 0)} ms`)
    .join(', ');
}

/** How long the loop was blocked before a late turn fired (ms): its lateness and the timer's own period. */
const blockedMs = (s: LagSample): number => s.lagMs + RESOLUTION_MS;

/** The blocked stretch behind each turn late by ≥ `minMs`: [its start, its end] in monotonic µs (a V8 profile's clock). */
export function blockedWindows(samples: readonly LagSample[], minMs = 50): [number, number][] {
  return samples.filter((s) => s.lagMs >= minMs).map((s): [number, number] => [s.mono - blockedMs(s) * 1000, s.mono]);
}

/** The same stretches in absolute ms, to read beside other processes' figures. */
export function blockedSpans(samples: readonly LagSample[], minMs = 50): [number, number][] {
  return samples.filter((s) => s.lagMs >= minMs).map((s): [number, number] => [s.t - blockedMs(s), s.t]);
}
