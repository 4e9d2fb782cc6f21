/**
 * The job map's one rule, pure: a job's row replaces the one held for it, and its live progress
 * follows the row — a row that is not running takes its bar with it (a cancelled, finished or
 * requeued job shows no bar, and a later run starts from its own frames, not the last run's); a
 * running row brings the progress it carries when no fresher frame is held.
 *
 * Only the jobs slice (jobs-slice.ts) writes the map, through these functions; the event reducer
 * (reducers.ts) uses `progressAfter` for `job.changed`. Every other slice gets a setter whose type
 * refuses the map's keys (types.ts `SetState`).
 */
import type { JobProgress, JobView } from '../../shared/domain.js';

/** The keys of the store that make up the job map. */
export type JobMapKey = 'jobs' | 'progress';

export interface JobMaps {
  jobs: Record<string, JobView>;
  /** Live progress of running jobs only, by job id (fresher than the row's own `progress`). */
  progress: Record<string, JobProgress>;
}

/** The progress to hold for `row`, given what is held now. */
export function progressAfter(row: JobView, held: JobProgress | undefined): JobProgress | undefined {
  if (row.state !== 'running') return undefined;
  return held ?? row.progress ?? undefined;
}

/** The maps with `rows` in them (the same objects when nothing changes). */
export function withRows(m: JobMaps, rows: readonly JobView[]): JobMaps {
  if (rows.length === 0) return m;
  const jobs = { ...m.jobs };
  let progress = m.progress;
  let copied = false;
  for (const r of rows) {
    jobs[r.id] = r;
    const held = progress[r.id];
    const next = progressAfter(r, held);
    if (next === held) continue;
    if (!copied) (progress = { ...progress }), (copied = true);
    if (next) progress[r.id] = next;
    else delete progress[r.id];
  }
  return { jobs, progress };
}
