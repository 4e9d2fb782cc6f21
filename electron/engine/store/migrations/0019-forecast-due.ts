/**
 * Issue 28 (forecast): `jobs.due_at` is when the shot list (a JSON `due`, a CSV `Due` column, or the
 * import's option) wants the job done, epoch ms, NULL when it named no time. `forecast_late` names
 * the groups (project, episode, sequence) the forecast last found late, and since when: the "late"
 * event goes out once when a group turns late, not at every recompute and not again after a
 * restart; the row goes when the group is on time again.
 * APPEND-ONLY: never edit once shipped.
 */
export const sql = `
ALTER TABLE jobs ADD COLUMN due_at INTEGER;
CREATE TABLE forecast_late (
  group_key TEXT PRIMARY KEY,
  late_at INTEGER NOT NULL
);
`;
