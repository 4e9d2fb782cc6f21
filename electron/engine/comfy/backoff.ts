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

/** A sleep that resolves early (without throwing) when `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
