/**
 * Jobs by state, kept incrementally for the running farm: counted once at start, then moved by the
 * event rows every state change writes (job_events) — the farm's own changes and other processes'
 * alike — so `status`, `farm.status` and `run --until-idle`'s check read counters instead of
 * recounting 100k jobs after every change. A look applies only the rows written since the last one.
 */
import type { JobState } from '../../../shared/job-states.js';
import { lastStateChangeId, stateChangesSince } from '../job-state.js';
import type { Db } from '../store/database.js';
import { countByState } from '../store/job-store.js';

/** Event rows applied per read of the store while catching up (a large import lands in several). */
const PAGE = 5_000;

export class FarmCounters {
  private byState: Record<JobState, number>;
  private lastId: number;

  constructor(private readonly db: Db) {
    // One read transaction: the counts and the event row they include are of the same moment.
    const start = db.transaction(() => ({ counts: countByState(db), lastId: lastStateChangeId(db) }))();
    this.byState = start.counts;
    this.lastId = start.lastId;
  }

  /** Jobs by state now. */
  jobsByState(): Record<JobState, number> {
    this.catchUp();
    return { ...this.byState };
  }

  /** Jobs that move by themselves: running, or waiting out a retry's backoff. */
  moving(): number {
    this.catchUp();
    return this.byState.running + this.byState.failed_retryable;
  }

  private catchUp(): void {
    for (;;) {
      const rows = stateChangesSince(this.db, this.lastId, PAGE);
      for (const r of rows) {
        if (r.from_state !== null) this.byState[r.from_state]--;
        this.byState[r.to_state]++;
        this.lastId = r.id;
      }
      if (rows.length < PAGE) return;
    }
  }
}
