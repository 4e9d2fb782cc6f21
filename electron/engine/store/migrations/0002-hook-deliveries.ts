/**
 * Hook deliveries (SPEC §8 "Hooks"): one row per (hook, job, terminal transition), so the UI can
 * show which notifications reached their target and which gave up, with the last error.
 * APPEND-ONLY: once shipped, never edit this file; add 0003-… instead.
 *
 * No foreign key to jobs: this is a log of what was sent, and must not stand in the way of a
 * future job purge. `dedupe_key` names the terminal transition (attempt count + finish time), so
 * publishing the same completed job twice queues one delivery, while a job that is retried and
 * fails again notifies again.
 */
export const sql = `
CREATE TABLE hook_deliveries (
  id INTEGER PRIMARY KEY,
  hook_id TEXT NOT NULL,
  job_id TEXT NOT NULL,
  event TEXT NOT NULL CHECK (event IN ('completed', 'failed')),
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
-- The UI's "failed deliveries" list, newest first.
CREATE INDEX hook_deliveries_status ON hook_deliveries (status, id);
CREATE INDEX hook_deliveries_job ON hook_deliveries (job_id);
`;
