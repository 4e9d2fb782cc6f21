/**
 * Lets the dispatcher find the longest-waiting queued jobs (starvation check) without sorting the
 * whole queue. APPEND-ONLY: never edit once shipped.
 */
export const sql = `
CREATE INDEX jobs_queued_age ON jobs (state, enqueued_at);
`;
