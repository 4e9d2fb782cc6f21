/**
 * Issue 25: a farm setting says who set it (the Settings view's "set … by …").
 * APPEND-ONLY: never edit once shipped.
 *
 * `settings.updated_by` is a person's name, `local` for the farm host's CLI or app, or NULL for a
 * row the engine keeps for itself (farm state, the farm claim, the RunPod key) and rows from before.
 */
export const sql = `
ALTER TABLE settings ADD COLUMN updated_by TEXT;
`;
