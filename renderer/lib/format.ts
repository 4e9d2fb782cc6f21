/** Display formatting: durations, sizes, times, and the words for states. */
import type { JobState } from '../../shared/job-states.js';

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  return `${h}h ${String(m % 60).padStart(2, '0')}m`;
}

export function gb(bytes: number): string {
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return gb(n);
}

export function clock(t: number | null | undefined): string {
  if (!t) return '—';
  return new Date(t).toLocaleTimeString([], {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
}

export function dateTime(t: number | null | undefined): string {
  if (!t) return '—';
  const d = new Date(t);
  return `${d.toLocaleDateString([], { month: 'short', day: 'numeric' })} ${clock(t)}`;
}

export function ago(t: number | null | undefined, now: number): string {
  if (!t) return 'never';
  const ms = now - t;
  if (ms < 5_000) return 'just now';
  return `${duration(ms)} ago`;
}

export const STATE_LABEL: Record<JobState, string> = {
  pending: 'Pending',
  queued: 'Queued',
  running: 'Running',
  completed: 'Done',
  failed_retryable: 'Retrying',
  failed_final: 'Failed',
  timeout_kill: 'Timed out',
  held: 'Held',
  cancelled: 'Cancelled',
};

/** Elapsed time of a job: running → since start; finished → its run time. */
export function elapsedMs(
  j: { startedAt: number | null; finishedAt: number | null; state: JobState },
  now: number,
): number | null {
  if (!j.startedAt) return null;
  // The page's clock ticks once a second: a job started since the last tick has run 0 s, not a negative time.
  if (j.state === 'running') return Math.max(0, now - j.startedAt);
  return j.finishedAt ? j.finishedAt - j.startedAt : null;
}

/** A workstation's load in words: "1 rendering + 1 next" (next: sent there, waiting behind the running prompt), "Rendering", "Nothing rendering". */
export function loadWords(rendering: number, next: number): string {
  if (next === 0)
    return rendering === 0 ? 'Nothing rendering' : rendering === 1 ? 'Rendering' : `${rendering} rendering`;
  return `${rendering} rendering + ${next} next`;
}
