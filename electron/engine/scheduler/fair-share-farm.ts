/**
 * Fair share as the running farm keeps it: the GPU time per project (gpu-time.ts, seeded from the
 * store at start), the live settings (fair_share, fair_share_window_s, project_weights), and what a
 * dispatch pass and "why waiting" ask of them. The scheduler holds one and calls it at its few
 * points: start, an attempt starting or ending, the candidate order, the wait facts.
 */
import type { Clock } from '../clock.js';
import { endedRunsSince } from '../store/attempt-store.js';
import type { Db } from '../store/database.js';
import type { JobRow } from '../store/job-rows.js';
import type { SchedulerConfig } from '../settings/farm-config.js';
import { fairCandidates } from './fair-candidates.js';
import { overShare } from './fair-share.js';
import { GpuTime } from './gpu-time.js';

export class FairShareFarm {
  private readonly gpu: GpuTime;

  constructor(private readonly d: { db: Db; clock: Clock; config: SchedulerConfig }) {
    this.gpu = new GpuTime(() => d.config.fairShare.windowMs);
  }

  /** Once, when the farm starts: the runs that ended inside the window. */
  seed(): void {
    this.gpu.seed(endedRunsSince(this.d.db, this.d.clock.now() - this.d.config.fairShare.windowMs));
  }

  started(attemptId: string, project: string): void {
    this.gpu.started(attemptId, project, this.d.clock.now());
  }

  ended(attemptId: string): void {
    this.gpu.ended(attemptId, this.d.clock.now());
  }

  /** The candidates in dispatch order with fair share applied (as they are when it is off). */
  order(rows: Iterable<JobRow>, headPerProject: number): Iterable<JobRow> {
    const { on, weights } = this.d.config.fairShare;
    const now = this.d.clock.now();
    return fairCandidates(
      this.d.db,
      rows,
      { on, weights, usedMs: () => this.gpu.usage(now), costMs: () => this.gpu.typicalMs(now) },
      headPerProject,
    );
  }

  /** The projects over their share among those that used the farm in the window ([] when fair share is off). */
  overShare(): string[] {
    if (!this.d.config.fairShare.on) return [];
    const used = this.gpu.usage(this.d.clock.now());
    return overShare([...used.keys()], used, this.d.config.fairShare.weights);
  }
}
