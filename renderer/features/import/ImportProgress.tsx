/**
 * How far a long import is, in the Import dialog: shown once a check or a commit has run for
 * SHOW_AFTER_MS (a short one never flashes a bar). The check streams its counts (the engine's
 * `import.progress` events for this dialog's token); the commit is one transaction — all rows or
 * none — so it shows that it writes, not a partial count.
 */
import { useEffect, useState } from 'react';
import type { ImportProgress as Progress } from '../../../shared/domain.js';
import type { ShotfarmClient } from '../../client/client.js';

/** An import shorter than this shows no bar. */
export const SHOW_AFTER_MS = 2_000;

/** A token for one check or commit: the events of this dialog's import carry it (plain characters, no secure context needed). */
export function newProgressId(): string {
  return `imp-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** The latest progress event of `progressId` (null before the first, and when none is running). */
export function useImportProgress(client: ShotfarmClient, progressId: string | null): Progress | null {
  const [progress, setProgress] = useState<Progress | null>(null);
  useEffect(() => {
    setProgress(null);
    if (!progressId) return;
    return client.subscribe('import.progress', (p) => {
      if (p.progressId === progressId) setProgress(p);
    });
  }, [client, progressId]);
  return progress;
}

/** True once `running` has been true for SHOW_AFTER_MS without a break. */
export function useShownAfter(running: boolean): boolean {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    setShown(false);
    if (!running) return;
    const t = setTimeout(() => setShown(true), SHOW_AFTER_MS);
    return () => clearTimeout(t);
  }, [running]);
  return shown;
}

const n = (v: number): string => v.toLocaleString();

export function ImportProgressBar({
  step,
  progress,
  rows,
}: {
  /** What the dialog is waiting for: the check of the file, or the commit of its rows. */
  step: 'checking' | 'writing';
  progress: Progress | null;
  /** Rows the commit writes (known from the preview); null while checking. */
  rows: number | null;
}) {
  const counting = step === 'checking' && progress !== null && progress.total > 0;
  const share = counting ? Math.min(1, progress.done / progress.total) : null;
  const c = progress?.counts;
  const label =
    step === 'writing'
      ? `Importing ${rows !== null ? n(rows) : 'the'} rows in one transaction (all of them or none)…`
      : counting
        ? `Checked ${n(progress.done)} of ${n(progress.total)} rows`
        : 'Reading the file…';
  return (
    <div
      className="import-progress"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={counting ? progress.total : undefined}
      aria-valuenow={counting ? progress.done : undefined}
      data-testid="import-progress"
      data-phase={step}
      data-done={counting ? progress.done : undefined}
      data-total={counting ? progress.total : undefined}
    >
      <div className="import-progress-label">
        <span>{label}</span>
        {counting && c && (
          <span className="muted small" data-testid="import-progress-counts">
            {n(c.new)} new · {n(c.duplicate)} already queued · {n(c.error)} with errors
          </span>
        )}
      </div>
      <div className={`bar bar-wide${share === null ? ' bar-indeterminate' : ''}`}>
        <span style={{ width: share === null ? undefined : `${(share * 100).toFixed(1)}%` }} />
      </div>
    </div>
  );
}
