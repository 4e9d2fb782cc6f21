/**
 * Jobs by state, kept incrementally for the running farm: counted once at start, then moved by the
 * event rows every state change writes (job_events) — the farm's own changes and other processes'
 * alike — so `status`, `farm.status` and `run --until-idle`'s check read counters instead of
 * recounting 100k jobs after every change. A look applies only the rows written since the last one.
 */
import type { JobState } from '../../../shared/job-states.js';
import { lastStateChangeId, stateChangesSince } from '../job-state.js';
import { databaseFault, type Db } from '../store/database.js';
import { countByState } from '../store/job-store.js';

/** Event rows applied per read of the store while catching up (a large import lands in several). */
const PAGE = 5_000;

/**
 * Further behind than this, the jobs are counted again instead: counting 135k jobs by state reads
 * an index (~7 ms) where applying their 135k event rows one by one held the loop for 130 ms (the
 * first `farm.status` after a studio-sized import or copy). Ids may skip (PostgreSQL's sequences):
 * an overestimate only means a recount, which is exact.
 */
const RECOUNT_AFTER = PAGE;

export class FarmCounters {
  private byState: Record<JobState, number>;
  private lastId: number;

  constructor(private readonly db: Db) {
    const start = this.count();
    this.byState = start.counts;
    this.lastId = start.lastId;
  }

  /** One read transaction: the counts and the event row they include are of the same moment. */
  private count(): { counts: Record<JobState, number>; lastId: number } {
    return this.db.readTransaction(() => ({ counts: countByState(this.db), lastId: lastStateChangeId(this.db) }));
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

  /**
   * Applies the event rows written since the last look. While the store cannot be read (its
   * server unreachable), the counts stay those of the last look: the farm's storage hold says why,
   * and the rows are applied once it answers again.
   */
  private catchUp(): void {
    try {
      this.apply();
    } catch (err) {
      if (databaseFault(err)) return;
      throw err;
    }
  }

  private apply(): void {
    if (lastStateChangeId(this.db) - this.lastId > RECOUNT_AFTER) {
      const now = this.count();
      this.byState = now.counts;
      this.lastId = now.lastId;
      return;
    }
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
