/**
 * Issue 30: `jobs_shot_stage` (shot_id, stage, take) served no query — a job's shot is found by
 * its names through the (project, episode, shot, stage, take) key, jobs join their shot by the
 * shot's own id, and no shot is ever deleted (the one thing a child-side index on a foreign key is
 * for). Every job written still paid for it: one more b-tree insert per row, on PostgreSQL one
 * more index tuple per row in an import's commit (docs/performance.md#import-at-scale).
 * APPEND-ONLY: never edit once shipped.
 */
export const sql = `
DROP INDEX jobs_shot_stage;
`;
