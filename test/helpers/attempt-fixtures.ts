/**
 * Writes attempt and asset rows straight into the store, for tests of the read side (exports,
 * lists) that must not depend on the scheduler. The rows have the shape the attempt runner writes.
 */
import type { Db } from '../../electron/engine/store/database.js';

export interface FakeAttempt {
  jobId: string;
  n: number;
  instance: string;
  gpu: string;
  queuedAt: number;
  dispatchedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  outcome: string | null;
  errorClass?: string | null;
  reason?: string | null;
  nodeId?: string | null;
  nodeType?: string | null;
  vramAtDispatch?: number | null;
}

export function insertAttempt(db: Db, a: FakeAttempt): string {
  const id = `att-${a.jobId}-${a.n}`;
  db.run(
    `INSERT INTO attempts (id, job_id, n, instance_id, instance_name, gpu_name, state, outcome, error_class, reason, node_id, node_type,
      queued_at, dispatched_at, started_at, finished_at, vram_at_dispatch)
     VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    id,
    a.jobId,
    a.n,
    a.instance,
    a.gpu,
    a.outcome ? 'ended' : 'running',
    a.outcome,
    a.errorClass ?? null,
    a.reason ?? null,
    a.nodeId ?? null,
    a.nodeType ?? null,
    a.queuedAt,
    a.dispatchedAt,
    a.startedAt,
    a.finishedAt,
    a.vramAtDispatch ?? null,
  );
  return id;
}

export function insertAsset(db: Db, jobId: string, attemptId: string, path: string, createdAt: number): void {
  db.run(
    `INSERT INTO assets (id, job_id, attempt_id, node_id, path, sha256, bytes, media_type, width, height, instance_name,
      template_name, template_hash, params_json, seed, created_at)
     VALUES (?, ?, ?, '9', ?, ?, 1234, 'image/png', 64, 64, 'gpu-01', 'keyframe-img2img', 'abc', '{"prompt":"x"}', 42, ?)`,
    `asset-${attemptId}-${path.length}`,
    jobId,
    attemptId,
    path,
    'f'.repeat(64),
    createdAt,
  );
}
