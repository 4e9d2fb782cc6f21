/**
 * Issue 25 item 7: the Timeline draws when the farm was paused or stopped, so an idle stretch a
 * pause caused is not read as GPUs idling. `settings` keeps only the farm's current state; this
 * keeps every change of it (written with the state itself, farm-state.ts).
 * APPEND-ONLY: never edit once shipped.
 */
export const sql = `
CREATE TABLE farm_state_changes (
  id INTEGER PRIMARY KEY,
  state TEXT NOT NULL CHECK (state IN ('running', 'paused', 'stopped')),
  actor TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX farm_state_changes_at ON farm_state_changes (at, id);
`;
