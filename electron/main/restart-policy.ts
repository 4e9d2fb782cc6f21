/**
 * How long the host waits before starting the engine again after its n-th crash in a row: doubling
 * from `initialMs`, capped at `maxMs`. Pure (conventions §5). No jitter: there is one engine per app,
 * so there is no herd to spread out.
 */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 30_000 };

export function restartDelay(consecutiveCrashes: number, over: Partial<BackoffPolicy> = {}): number {
  const { initialMs, maxMs } = { ...DEFAULT_BACKOFF, ...over };
  const n = Math.max(1, Math.floor(consecutiveCrashes));
  // 2 ** 30 already exceeds any sane cap; clamping the exponent keeps the arithmetic finite.
  return Math.min(maxMs, initialMs * 2 ** Math.min(n - 1, 30));
}
