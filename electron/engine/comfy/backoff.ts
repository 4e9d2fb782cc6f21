// Bounded exponential backoff with full jitter (SPEC §4.6, §5): wait a uniformly random time in
// [0, min(cap, base × 2^n)). Full jitter keeps many followers that lost the same server at the
// same moment from reconnecting in lock-step. Pure: randomness is injected.

export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

/** Delay before retry number `failures` (0 = the first retry). `random` returns [0, 1). */
export function fullJitterDelay(failures: number, policy: BackoffPolicy, random: () => number): number {
  // Clamp the exponent: 2^31 already overflows any sane cap, and avoids Infinity.
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(Math.max(failures, 0), 30));
  return Math.floor(random() * ceiling);
}

/** The timers a sleep runs on (the engine's injected ones: clock.ts Timers). */
export interface SleepTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const nodeTimers: SleepTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** A sleep on `timers` that resolves early (without throwing) when `signal` aborts. */
export function sleepOn(timers: SleepTimers): (ms: number, signal?: AbortSignal) => Promise<void> {
  return (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = (): void => {
        timers.clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = timers.setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    });
}

/** A sleep that resolves early (without throwing) when `signal` aborts. */
export const abortableSleep = sleepOn(nodeTimers);
