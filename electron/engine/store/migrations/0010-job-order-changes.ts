/**
 * Issue 25: bumps, moves to the top and their undos are history rows, with who did them.
 * APPEND-ONLY: never edit once shipped.
 *
 * A table of its own rather than rows in job_events: job_events holds state changes only, and its
 * readers rely on that (the farm's counters, "queued since" for waits and burst, the uncancel
 * check of the latest change). An order change does not change the state.
 * `after_event` is the job's newest job_events id when the change was made, so the drawer's
 * history puts both kinds in the order they happened even within one millisecond.
 */
export const sql = `
CREATE TABLE job_order_changes (
  id INTEGER PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES jobs(id),
  from_priority INTEGER NOT NULL,
  to_priority INTEGER NOT NULL,
  from_rank INTEGER NOT NULL,
  to_rank INTEGER NOT NULL,
  why TEXT NOT NULL CHECK (why IN ('bump', 'top', 'undo')),
  after_event INTEGER NOT NULL,
  actor TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX job_order_changes_job ON job_order_changes (job_id, id);
`;
