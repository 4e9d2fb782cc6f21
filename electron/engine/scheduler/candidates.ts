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
 * order among them is free, so jobs whose checkpoint a free GPU already holds go first: the
 * choice rule then sends each to that GPU and no model is reloaded. The order between runs is
 * never changed.
 */
export function* preferWarm(
  rows: Iterable<JobRow>,
  warm: ReadonlySet<string>,
  lookahead: number,
  checkpointOf: (job: JobRow) => string | null,
): Generator<JobRow> {
  if (warm.size === 0) return yield* rows;
  let group: JobRow[] = [];
  const isWarm = (j: JobRow): boolean => {
    const c = checkpointOf(j);
    return c !== null && warm.has(c);
  };
  function* flush(): Generator<JobRow> {
    yield* group.filter(isWarm);
    yield* group.filter((j) => !isWarm(j));
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
