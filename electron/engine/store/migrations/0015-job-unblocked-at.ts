/**
 * Issue 25: a burst wait counts only time the job could have been dispatched, so a job blocked for
 * an hour (no workstation or endpoint could take it) does not go to the paid endpoint the moment
 * one can. `jobs.unblocked_at` is when its blocked mark was last lifted (NULL: never blocked).
 * APPEND-ONLY: never edit once shipped.
 */
export const sql = `
ALTER TABLE jobs ADD COLUMN unblocked_at INTEGER;
`;
