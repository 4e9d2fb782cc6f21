/**
 * The queued jobs a dispatch pass looks at, in the order it looks at them: the dispatch order
 * (priority, rank, enqueue time) read a page at a time, with jobs whose checkpoint a free GPU
 * already holds moved ahead within runs of jobs that tie on that order.
 */
import type { Db } from '../store/database.js';
import type { JobRow } from '../store/job-rows.js';
import { queuedPage } from '../store/job-store.js';

/**
 * Candidates in dispatch order: a small first page (a few per free slot) covers the usual case;
 * further pages, up to `scan`, only when the head of the queue fits nowhere.
 */
export function* candidates(db: Db, freeSlots: number, scan: number): Generator<JobRow> {
  const page = Math.min(scan, Math.max(16, freeSlots * 4));
  for (let offset = 0; offset < scan; offset += page) {
    const rows = queuedPage(db, page, offset);
    yield* rows;
    if (rows.length < page) return;
  }
}

/**
 * Within a run of jobs that tie on priority, rank and enqueue time — an imported batch — the
 * order among them is free, so for each open place that holds a checkpoint (free slots first, then
 * waiting places) the first job of that checkpoint goes ahead: the choice rule then sends each to
 * a GPU that holds its model and none is reloaded. Matched place by place, not against the set of
 * warm models: with one GPU holding A and one B free together, "every A and B job is warm" would
 * leave three B jobs first and send one of them to the A GPU. The order between runs is never
 * changed.
 */
export function* preferWarm(
  rows: Iterable<JobRow>,
  warm: readonly string[],
  lookahead: number,
  checkpointOf: (job: JobRow) => string | null,
): Generator<JobRow> {
  if (warm.length === 0) return yield* rows;
  let group: JobRow[] = [];
  function* flush(): Generator<JobRow> {
    const byCheckpoint = new Map<string, JobRow[]>();
    for (const j of group) {
      const c = checkpointOf(j);
      if (c === null) continue;
      const list = byCheckpoint.get(c);
      if (list) list.push(j);
      else byCheckpoint.set(c, [j]);
    }
    const taken = new Set<JobRow>();
    const ahead: JobRow[] = [];
    for (const c of warm) {
      const match = byCheckpoint.get(c)?.shift();
      if (match) {
        taken.add(match);
        ahead.push(match);
      }
    }
    yield* ahead;
    yield* group.filter((j) => !taken.has(j));
    group = [];
  }
  for (const row of rows) {
    const head = group[0];
    // A bounded look-ahead: a 100k-job batch is one tie group, and reading it all would cost more than a reload.
    if (
      head &&
      (group.length >= lookahead ||
        head.priority !== row.priority ||
        head.rank !== row.rank ||
        head.enqueued_at !== row.enqueued_at)
    )
      yield* flush();
    group.push(row);
  }
  yield* flush();
}
