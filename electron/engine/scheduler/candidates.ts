/**
 * The queued jobs a dispatch pass looks at, in the order it looks at them: the dispatch order
 * (priority, rank, enqueue time) read a page at a time, with jobs whose checkpoint a free GPU
 * already holds moved ahead within runs of jobs that tie on that order.
 */
import type { Db } from '../store/database.js';
import type { JobRow } from '../store/job-rows.js';
import { queuedPage } from '../store/job-store.js';

/** Rows in the first candidate page of a pass with one open place. */
export const FIRST_PAGE = 4;

/**
 * Candidates in dispatch order: a small first page, then pages twice as large up to a few per free
 * slot (`full`), further ones up to `scan` only when the head of the queue fits nowhere. The
 * consumer (dispatch-choice.ts) stops pulling once the pass's places are filled — usually one or
 * two jobs after a GPU frees — so most passes read one page of four rows; a whole job row costs
 * ~20 µs to read, and a fixed 16-row page was a tenth of the engine's CPU per job on a small farm.
 */
export function* candidates(db: Db, freeSlots: number, scan: number): Generator<JobRow> {
  const full = Math.min(scan, Math.max(16, freeSlots * 4));
  let page = Math.min(full, Math.max(FIRST_PAGE, freeSlots * 2));
  for (let offset = 0; offset < scan; ) {
    const want = Math.min(page, scan - offset);
    const rows = queuedPage(db, want, offset);
    yield* rows;
    if (rows.length < want) return;
    offset += rows.length;
    page = Math.min(full, page * 2);
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
 *
 * Lazy: once every open place has its job, what this window has read goes out and the rest of the
 * window passes through unchanged — the order is the one reading the whole window gives (the
 * matches are the first of their model either way), but a pass that fills its place from the first
 * rows reads no further.
 */
export function* preferWarm(
  rows: Iterable<JobRow>,
  warm: readonly string[],
  lookahead: number,
  checkpointOf: (job: JobRow) => string | null,
): Generator<JobRow> {
  if (warm.length === 0) return yield* rows;
  /** The window's rows read so far (until it is given out) and their checkpoints. */
  let group: JobRow[] = [];
  let models: (string | null)[] = [];
  /** How many places of each model are still without a job in this window. */
  let unmatched = new Map<string, number>();
  let open = 0;
  let head: JobRow | null = null;
  let inWindow = 0;
  /** The window was given out early: its remaining rows pass through. */
  let given = false;
  function* giveOut(): Generator<JobRow> {
    const byCheckpoint = new Map<string, JobRow[]>();
    group.forEach((j, i) => {
      const c = models[i];
      if (c === null || c === undefined) return;
      const list = byCheckpoint.get(c);
      if (list) list.push(j);
      else byCheckpoint.set(c, [j]);
    });
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
    models = [];
  }
  for (const row of rows) {
    // A bounded look-ahead: a 100k-job batch is one tie group, and reading it all would cost more than a reload.
    if (
      head === null ||
      inWindow >= lookahead ||
      head.priority !== row.priority ||
      head.rank !== row.rank ||
      head.enqueued_at !== row.enqueued_at
    ) {
      if (!given) yield* giveOut();
      head = row;
      inWindow = 0;
      given = false;
      unmatched = new Map();
      for (const c of warm) unmatched.set(c, (unmatched.get(c) ?? 0) + 1);
      open = warm.length;
    }
    inWindow++;
    if (given) {
      yield row;
      continue;
    }
    const c = checkpointOf(row);
    group.push(row);
    models.push(c);
    const left = c === null ? 0 : (unmatched.get(c) ?? 0);
    if (c !== null && left > 0) {
      unmatched.set(c, left - 1);
      if (--open === 0) {
        yield* giveOut();
        given = true;
      }
    }
  }
  if (!given) yield* giveOut();
}
