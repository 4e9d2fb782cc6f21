/**
 * How busy a lane's GPU was over a window: the share of the time some prompt of ours ran on it.
 * A prompt sent ahead (prefetch) only waits there until it starts, and an attempt is recorded as
 * ended after its outputs are collected — when the next prompt already runs — so the bars overlap:
 * busy time is the union of the run stretches (start on the GPU → end), never their sum, and is at
 * most 100 %. Pure.
 */
import type { TimelineBar } from '../../../shared/domain.js';

/** The stretch a bar's prompt ran on its GPU, or null if it never started (it only waited there). */
export function runStretch(b: Pick<TimelineBar, 'startedAt' | 'end'>, now: number): [number, number] | null {
  if (b.startedAt === null) return null;
  return [b.startedAt, Math.max(b.startedAt, b.end ?? now)];
}

/** Busy share 0–1 of [from, min(to, now)]. */
export function busyShare(
  bars: readonly Pick<TimelineBar, 'startedAt' | 'end'>[],
  from: number,
  to: number,
  now: number,
): number {
  const until = Math.min(to, now);
  const span = until - from;
  if (span <= 0) return 0;
  const stretches = bars
    .map((b) => runStretch(b, now))
    .filter((s): s is [number, number] => s !== null)
    .map(([a, z]): [number, number] => [Math.max(a, from), Math.min(z, until)])
    .filter(([a, z]) => z > a)
    .sort((x, y) => x[0] - y[0]);
  let busy = 0;
  let reach = from;
  for (const [a, z] of stretches) {
    if (z <= reach) continue;
    busy += z - Math.max(a, reach);
    reach = z;
  }
  return Math.min(1, busy / span);
}
