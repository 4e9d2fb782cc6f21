/**
 * Issue 28: hooks can be told when a forecast group turns late (`--on late`). SQLite cannot change
 * a CHECK in place, so `hook_deliveries` is rebuilt with 'late' among its events, rows and ids kept
 * (PostgreSQL swaps the constraint instead: store/postgres/schema-dialect.ts). A late delivery's
 * `job_id` holds the group's key (project/episode[/sequence]) and its `dedupe_key` the group's due
 * time, so a group is announced once per due time, and again when its due time changes.
 * APPEND-ONLY: never edit once shipped.
 */
export const sql = `
CREATE TABLE hook_deliveries_0020 (
  id INTEGER PRIMARY KEY,
  hook_id TEXT NOT NULL,
  job_id TEXT NOT NULL,
  event TEXT NOT NULL CHECK (event IN ('completed', 'failed', 'late')),
  dedupe_key TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  last_error TEXT,
  next_attempt_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (hook_id, job_id, event, dedupe_key)
);
INSERT INTO hook_deliveries_0020 (id, hook_id, job_id, event, dedupe_key, payload_json, attempts, status, last_error,
  next_attempt_at, created_at, updated_at)
  SELECT id, hook_id, job_id, event, dedupe_key, payload_json, attempts, status, last_error, next_attempt_at, created_at,
    updated_at FROM hook_deliveries;
DROP TABLE hook_deliveries;
ALTER TABLE hook_deliveries_0020 RENAME TO hook_deliveries;
CREATE INDEX hook_deliveries_status ON hook_deliveries (status, id);
CREATE INDEX hook_deliveries_job ON hook_deliveries (job_id);
`;
