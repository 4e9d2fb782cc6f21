/**
 * The initial schema. APPEND-ONLY: once shipped, never edit this file — the store records its hash
 * and refuses to open a database whose applied migration text differs. Add 0002-… instead.
 */
export const sql = `
CREATE TABLE projects (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
);

CREATE TABLE episodes (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (project_id, name)
);

CREATE TABLE shots (
  id INTEGER PRIMARY KEY,
  episode_id INTEGER NOT NULL REFERENCES episodes(id),
  code TEXT NOT NULL,
  description TEXT,
  metadata_json TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  UNIQUE (episode_id, code)
);

CREATE TABLE templates (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  stage TEXT NOT NULL,
  description TEXT,
  workflow_json TEXT NOT NULL,
  params_json TEXT NOT NULL,
  hash TEXT NOT NULL,
  vram_gb REAL NOT NULL,
  tags_json TEXT NOT NULL,
  timeout_s INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (name, version)
);

CREATE TABLE instances (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  url TEXT NOT NULL UNIQUE,
  tags_json TEXT NOT NULL DEFAULT '[]',
  max_concurrency INTEGER NOT NULL DEFAULT 1 CHECK (max_concurrency >= 1),
  vram_overrides_json TEXT NOT NULL DEFAULT '{}',
  admin_state TEXT NOT NULL DEFAULT 'active' CHECK (admin_state IN ('active', 'draining', 'disabled')),
  health TEXT NOT NULL DEFAULT 'unknown',
  gpu_name TEXT,
  vram_json TEXT,
  comfy_version TEXT,
  queue_length INTEGER,
  last_probe_at INTEGER,
  last_error TEXT,
  consecutive_failures INTEGER NOT NULL DEFAULT 0,
  quarantined_until INTEGER,
  last_checkpoint TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  shot_id INTEGER NOT NULL REFERENCES shots(id),
  project TEXT NOT NULL,
  episode TEXT NOT NULL,
  shot TEXT NOT NULL,
  stage TEXT NOT NULL,
  take INTEGER NOT NULL CHECK (take >= 1),
  template_id INTEGER NOT NULL REFERENCES templates(id),
  template_name TEXT NOT NULL,
  params_json TEXT NOT NULL,
  inputs_json TEXT NOT NULL DEFAULT '{}',
  seed INTEGER,
  seed_pinned INTEGER NOT NULL DEFAULT 0,
  priority INTEGER NOT NULL,
  rank INTEGER NOT NULL DEFAULT 0,
  state TEXT NOT NULL CHECK (state IN ('pending', 'queued', 'running', 'completed', 'failed_retryable',
                                       'failed_final', 'timeout_kill', 'held', 'cancelled')),
  state_reason TEXT,
  error_class TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  current_attempt_id TEXT,
  instance_id TEXT,
  depends_on TEXT REFERENCES jobs(id) DEFERRABLE INITIALLY DEFERRED,
  vram_gb REAL NOT NULL,
  tags_json TEXT NOT NULL DEFAULT '[]',
  timeout_s INTEGER NOT NULL,
  not_before INTEGER,
  enqueued_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  progress_node TEXT,
  progress_node_type TEXT,
  progress_value INTEGER,
  progress_max INTEGER,
  progress_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (project, episode, shot, stage, take)
);
-- The dispatcher's "next runnable job" scan: state first, then the order of SPEC §3.
CREATE INDEX jobs_runnable ON jobs (state, priority DESC, rank, enqueued_at);
CREATE INDEX jobs_shot_stage ON jobs (shot_id, stage, take);
CREATE INDEX jobs_depends_on ON jobs (depends_on) WHERE depends_on IS NOT NULL;

CREATE TABLE attempts (
  id TEXT PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES jobs(id),
  n INTEGER NOT NULL,
  instance_id TEXT,
  instance_name TEXT,
  gpu_name TEXT,
  state TEXT NOT NULL CHECK (state IN ('claimed', 'posted', 'running', 'collecting', 'ended')),
  outcome TEXT,
  error_class TEXT,
  reason TEXT,
  node_id TEXT,
  node_type TEXT,
  exception_type TEXT,
  client_id TEXT,
  prompt_number REAL,
  queued_at INTEGER NOT NULL,
  dispatched_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  lease_until INTEGER,
  vram_at_dispatch INTEGER,
  UNIQUE (job_id, n)
);
CREATE INDEX attempts_dispatched ON attempts (dispatched_at);
CREATE INDEX attempts_instance ON attempts (instance_id, dispatched_at);
CREATE INDEX attempts_live ON attempts (state) WHERE state <> 'ended';

CREATE TABLE job_events (
  id INTEGER PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES jobs(id),
  attempt_id TEXT,
  from_state TEXT,
  to_state TEXT NOT NULL,
  reason TEXT,
  actor TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX job_events_job ON job_events (job_id, id);

CREATE TABLE assets (
  id TEXT PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES jobs(id),
  attempt_id TEXT NOT NULL REFERENCES attempts(id),
  node_id TEXT,
  path TEXT NOT NULL UNIQUE,
  sha256 TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  media_type TEXT NOT NULL,
  width INTEGER,
  height INTEGER,
  instance_id TEXT,
  instance_name TEXT,
  template_name TEXT NOT NULL,
  template_hash TEXT NOT NULL,
  params_json TEXT NOT NULL,
  seed INTEGER,
  approved INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
CREATE INDEX assets_job ON assets (job_id);
CREATE INDEX assets_created ON assets (created_at);

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
`;
