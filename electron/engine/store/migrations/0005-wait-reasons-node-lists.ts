/**
 * Why a job waits, durably, and the workstations' node lists (the issue "Scheduler truth on real
 * servers"). APPEND-ONLY: never edit once shipped; add 0005-… instead.
 *
 * `blocked` marks a queued job that no registered workstation could ever take (tags, total VRAM,
 * nodes or models), with `wait_reason` saying why. It is not a state: the job stays queued and is
 * unblocked when the farm changes. Only `blocked = 1` rows enter the partial index, so an insert
 * (always 0) touches no extra index and `status` counts blocked jobs without reading the queue.
 *
 * `instance_node_lists` keeps what the capability check needs of each workstation's /object_info —
 * node classes and their combo lists (models, samplers), not the MBs of input specs — written when
 * the list is loaded and differs from the stored one (by hash), so a process without a running farm
 * (the CLI's import) can check nodes and models too.
 */
export const sql = `
ALTER TABLE jobs ADD COLUMN blocked INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN wait_reason TEXT;
CREATE INDEX jobs_blocked ON jobs (state) WHERE blocked = 1;

CREATE TABLE instance_node_lists (
  instance_id TEXT PRIMARY KEY REFERENCES instances(id) ON DELETE CASCADE,
  sha256 TEXT NOT NULL,
  nodes_json TEXT NOT NULL,
  loaded_at INTEGER NOT NULL
);
`;
