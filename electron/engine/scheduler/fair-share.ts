/**
 * Fair share between projects (pure; table-tested in test/unit/fair-share.test.ts). Among queued
 * jobs that tie on priority and rank, the next free slot goes to the project furthest below its
 * share of GPU time: the one with the least GPU time per unit of weight over the window. Each job
 * handed out in one pass is counted as `costMs` more for its project, so four free GPUs are not all
 * given to the project that was furthest behind when the pass began.
 *
 * Within a project the order is the dispatch order. Who imported is not yet a job column (L-a's
 * imported_by); when it is, the same rule applies within a project between importers.
 */

/** A project's weight: the operator's, else 1 (so an unnamed project competes as an equal). */
export function weightOf(weights: Readonly<Record<string, number>>, project: string): number {
  const w = weights[project];
  return w !== undefined && w > 0 ? w : 1;
}

/** GPU time per unit of weight: lower means further below its share. */
export function normalisedUse(usedMs: number, weight: number): number {
  return usedMs / weight;
}

export interface ProjectQueue<T> {
  project: string;
  /** Its waiting jobs, in dispatch order. */
  jobs: readonly T[];
}

/**
 * Interleaves the projects' queues: repeatedly the head of the project with the least normalised
 * use, that project then charged `costMs`. Ties go to the project listed first (the caller lists
 * them in dispatch order of their heads), so equal use keeps the plain dispatch order.
 */
export function fairOrder<T>(
  queues: readonly ProjectQueue<T>[],
  usedMs: ReadonlyMap<string, number>,
  weights: Readonly<Record<string, number>>,
  costMs: number,
  /** How many jobs one entry stands for (the forecast's aggregated buckets, forecast/simulate.ts): charged that many times. */
  jobsIn: (entry: T) => number = () => 1,
): T[] {
  const state = queues.map((q) => ({
    q,
    next: 0,
    used: usedMs.get(q.project) ?? 0,
    weight: weightOf(weights, q.project),
  }));
  const out: T[] = [];
  for (;;) {
    let best: (typeof state)[number] | null = null;
    for (const s of state) {
      if (s.next >= s.q.jobs.length) continue;
      if (best === null || normalisedUse(s.used, s.weight) < normalisedUse(best.used, best.weight)) best = s;
    }
    if (best === null) return out;
    out.push(best.q.jobs[best.next] as T);
    best.next++;
    best.used += costMs * jobsIn(best.q.jobs[best.next - 1] as T);
  }
}

/**
 * The projects over their share among those competing: whose share of the GPU time used exceeds
 * their share of the weight (with a 5 % margin, so a project exactly at its share is not named).
 */
export function overShare(
  projects: readonly string[],
  usedMs: ReadonlyMap<string, number>,
  weights: Readonly<Record<string, number>>,
): string[] {
  if (projects.length < 2) return [];
  const total = projects.reduce((n, p) => n + (usedMs.get(p) ?? 0), 0);
  if (total <= 0) return [];
  const weightSum = projects.reduce((n, p) => n + weightOf(weights, p), 0);
  return projects.filter((p) => (usedMs.get(p) ?? 0) / total > (weightOf(weights, p) / weightSum) * 1.05);
}

/** What "why waiting" adds for a job whose project is over its share, or null. */
export function shareNote(project: string, over: readonly string[] | undefined): string | null {
  return over?.includes(project) ? `project ${project} is over its share of GPU time` : null;
}
