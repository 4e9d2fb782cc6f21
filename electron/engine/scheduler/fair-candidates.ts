/**
 * The dispatch order with fair share applied (scheduler/fair-share.ts): wherever the candidates
 * reach queued jobs of a priority below rush at the default rank (0), and more than one project
 * waits there, the heads of those projects' queues come first, interleaved by the policy. Rush jobs
 * and jobs an operator moved to the top (a rank of their own) pass through in their order, so they
 * stay above fair share. One project waiting (the usual solo case) costs one small index probe per
 * priority reached.
 */
import { PRIORITY_VALUE } from '../../../shared/priorities.js';
import type { Db } from '../store/database.js';
import type { JobRow } from '../store/job-rows.js';
import { queuedOfProject, queuedProjects } from '../store/job-store.js';
import { fairOrder } from './fair-share.js';

export interface FairShareNow {
  on: boolean;
  weights: Readonly<Record<string, number>>;
  /** GPU time per project in the window (asked only when two projects compete). */
  usedMs(): ReadonlyMap<string, number>;
  /** What one more dispatch is expected to cost its project. */
  costMs(): number;
}

export function* fairCandidates(
  db: Db,
  rows: Iterable<JobRow>,
  fair: FairShareNow,
  headPerProject: number,
): Generator<JobRow> {
  if (!fair.on) return yield* rows;
  const given = new Set<string>();
  const seen = new Set<number>();
  for (const row of rows) {
    if (given.has(row.id)) continue;
    if (row.rank !== 0 || row.priority >= PRIORITY_VALUE.rush || seen.has(row.priority)) {
      yield row;
      continue;
    }
    seen.add(row.priority);
    const projects = queuedProjects(db, row.priority);
    if (projects.length < 2) {
      yield row;
      continue;
    }
    const queues = projects.map((project) => ({
      project,
      jobs: queuedOfProject(db, row.priority, project, headPerProject),
    }));
    // Ties in use go to the project whose head came first in the plain order.
    const first = (q: { jobs: readonly JobRow[] }): number => q.jobs[0]?.enqueued_at ?? Number.POSITIVE_INFINITY;
    queues.sort((a, b) => first(a) - first(b));
    for (const job of fairOrder(queues, fair.usedMs(), fair.weights, fair.costMs())) {
      given.add(job.id);
      yield job;
    }
    if (!given.has(row.id)) yield row;
  }
}
