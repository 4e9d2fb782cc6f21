/**
 * GPU time per project over the fair-share window, kept in memory: seeded once from the store when
 * the farm starts, then added to as attempts start and end — a dispatch pass never scans the
 * attempts table. An ended attempt counts in full at its end time until it leaves the window; an
 * open one counts what it has run so far.
 */
export interface EndedRun {
  project: string;
  /** When it ended (ms). */
  at: number;
  ms: number;
}

export class GpuTime {
  /** Ended runs in end-time order; `head` is the first still inside the window. */
  private readonly runs: EndedRun[] = [];
  private head = 0;
  private readonly sums = new Map<string, number>();
  private readonly open = new Map<string, { project: string; since: number }>();

  constructor(private readonly windowMs: () => number) {}

  /** The runs that ended inside the window before this process started (any order). */
  seed(runs: readonly EndedRun[]): void {
    for (const r of [...runs].sort((a, b) => a.at - b.at)) this.add(r);
  }

  started(attemptId: string, project: string, at: number): void {
    this.open.set(attemptId, { project, since: at });
  }

  ended(attemptId: string, at: number): void {
    const o = this.open.get(attemptId);
    if (!o) return;
    this.open.delete(attemptId);
    this.add({ project: o.project, at, ms: Math.max(0, at - o.since) });
  }

  /** GPU time per project in the window ending now, open attempts included. */
  usage(now: number): Map<string, number> {
    this.prune(now);
    const used = new Map(this.sums);
    for (const o of this.open.values()) used.set(o.project, (used.get(o.project) ?? 0) + Math.max(0, now - o.since));
    return used;
  }

  /** A typical run's length in the window (what one more dispatch will cost its project); 1 s when none ended yet. */
  typicalMs(now: number): number {
    this.prune(now);
    const n = this.runs.length - this.head;
    if (n === 0) return 1_000;
    let total = 0;
    for (const v of this.sums.values()) total += v;
    return Math.max(1, total / n);
  }

  private add(r: EndedRun): void {
    this.runs.push(r);
    this.sums.set(r.project, (this.sums.get(r.project) ?? 0) + r.ms);
  }

  private prune(now: number): void {
    const from = now - this.windowMs();
    while (this.head < this.runs.length && (this.runs[this.head] as EndedRun).at < from) {
      const r = this.runs[this.head] as EndedRun;
      const left = (this.sums.get(r.project) ?? 0) - r.ms;
      if (left > 0) this.sums.set(r.project, left);
      else this.sums.delete(r.project);
      this.head++;
    }
    // Drop what left the window now and then, so the array does not grow for ever.
    if (this.head > 1024 && this.head * 2 > this.runs.length) {
      this.runs.splice(0, this.head);
      this.head = 0;
    }
  }
}
