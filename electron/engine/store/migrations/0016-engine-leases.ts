/**
 * Issue 27: several engines share one PostgreSQL farm. `engines` lists each engine that ran it
 * (host, pid, version, kind, when it started, last renewed and stopped); `workstation_leases` says
 * which engine drives each workstation now — the engine, an epoch bumped at every take (the fence
 * an attempt's writes carry) and when the lease expires — and the engine a workstation is pinned to
 * (`workers pin`: an engine id or a host name). The tables exist on SQLite too (one schema
 * history); there a single engine runs the farm and never writes them.
 * APPEND-ONLY: never edit once shipped.
 */
export const sql = `
CREATE TABLE engines (
  id TEXT PRIMARY KEY,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  version TEXT NOT NULL,
  kind TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  renewed_at INTEGER NOT NULL,
  stopped_at INTEGER
);
CREATE TABLE workstation_leases (
  instance_id TEXT PRIMARY KEY REFERENCES instances(id) ON DELETE CASCADE,
  engine_id TEXT,
  epoch INTEGER NOT NULL DEFAULT 0,
  expires_at INTEGER NOT NULL DEFAULT 0,
  pinned_engine TEXT
);
CREATE INDEX workstation_leases_engine ON workstation_leases (engine_id);
`;
