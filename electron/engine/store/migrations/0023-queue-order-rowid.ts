/**
 * Issue 30: the queue's head (`SQL_CANDIDATES`: state = 'queued' ORDER BY priority DESC, rank,
 * enqueued_at, rowid) is read by every dispatch pass. On SQLite `jobs_runnable` already ends in the
 * rowid (every index entry carries it), so the page is read off the index. On PostgreSQL rowid is a
 * column of its own (schema-dialect.ts ROWID_TABLES) that the index did not hold, so every pass
 * sorted every queued job to find 16 — 20 ms at 20k queued, ~100 ms at 100k, on the engine's
 * thread (the bridge is synchronous): a one-row import took 110 ms there against 7 on SQLite.
 * Nothing to do on SQLite; PostgreSQL's text (OWN_TEXT) rebuilds the index with the rowid last.
 * APPEND-ONLY: never edit once shipped.
 */
export const sql = `
-- SQLite: jobs_runnable (state, priority DESC, rank, enqueued_at) already ends in the rowid.
`;
