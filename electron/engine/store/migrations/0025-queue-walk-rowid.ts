/**
 * Issue 30: a walk of the whole queue (the blocked-jobs sweep and full passes, the farm-progress
 * walk: job-store.ts queuedAfter) reads queued rows in (enqueued_at, rowid) order off
 * jobs_queued_age, never the farm's finished history. Within one enqueue time — an import's jobs
 * all share one — the rowid bounds the search. On SQLite every index entry already ends in the
 * rowid. On PostgreSQL rowid is a column of its own (schema-dialect.ts ROWID_TABLES) that the index
 * did not hold, so a chunk from the middle of a 100k-job import read and sorted all of them;
 * PostgreSQL's text (OWN_TEXT) rebuilds the index with the rowid last, as 0023 did for the queue's head.
 * APPEND-ONLY: never edit once shipped.
 */
export const sql = `
-- SQLite: jobs_queued_age (state, enqueued_at) already ends in the rowid.
`;
