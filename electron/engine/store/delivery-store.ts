/**
 * Every statement on `hook_deliveries` (migration 0002): one row per hook × job × terminal
 * transition, updated after each try, so the operator can list what failed and why.
 */
import type { HookDeliveryView } from '../../../shared/domain.js';
import type { DeliveryStatus, HookEvent } from '../../../shared/hooks.js';
import type { Db } from './database.js';
import { all, one, run } from './statements.js';

export type { HookDeliveryView };

export interface DeliveryRow {
  id: number;
  hook_id: string;
  job_id: string;
  event: HookEvent;
  dedupe_key: string;
  payload_json: string;
  attempts: number;
  status: DeliveryStatus;
  last_error: string | null;
  next_attempt_at: number | null;
  created_at: number;
  updated_at: number;
}

export function toDeliveryView(r: DeliveryRow): HookDeliveryView {
  return {
    id: r.id,
    hookId: r.hook_id,
    jobId: r.job_id,
    event: r.event,
    attempts: r.attempts,
    status: r.status,
    lastError: r.last_error,
    nextAttemptAt: r.next_attempt_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Queue a delivery; ignored when this hook was already queued for this transition (returns null). */
const INSERT = `INSERT INTO hook_deliveries (hook_id, job_id, event, dedupe_key, payload_json, created_at, updated_at)
  VALUES (@hookId, @jobId, @event, @dedupeKey, @payloadJson, @now, @now) ON CONFLICT DO NOTHING RETURNING id`;
/** One delivery by id. */
const BY_ID = 'SELECT * FROM hook_deliveries WHERE id = ?';
/** Deliveries a crash or a close left unfinished, oldest first. */
const PENDING = "SELECT * FROM hook_deliveries WHERE status = 'pending' ORDER BY id";
/** Record one try; only a pending delivery changes (a finished one is final). */
const RECORD_TRY = `UPDATE hook_deliveries SET attempts = attempts + 1, status = @status, last_error = @error,
  next_attempt_at = @nextAttemptAt, updated_at = @now WHERE id = @id AND status = 'pending'`;
/** Close a delivery without a try (its hook was removed meanwhile). */
const GIVE_UP = `UPDATE hook_deliveries SET status = 'failed', last_error = @error, next_attempt_at = NULL, updated_at = @now
  WHERE id = @id AND status = 'pending'`;
/** The newest deliveries, all or of one status. */
const LIST_ALL = 'SELECT * FROM hook_deliveries ORDER BY id DESC LIMIT ?';
const LIST_BY_STATUS = 'SELECT * FROM hook_deliveries WHERE status = ? ORDER BY id DESC LIMIT ?';

export interface NewDelivery {
  hookId: string;
  jobId: string;
  event: HookEvent;
  dedupeKey: string;
  payloadJson: string;
  now: number;
}

export function insertDelivery(db: Db, d: NewDelivery): number | null {
  // RETURNING (both stores take it): no row when the dedupe key was there already.
  return one<{ id: number }>(db, INSERT, d)?.id ?? null;
}

export function deliveryRow(db: Db, id: number): DeliveryRow | undefined {
  return one<DeliveryRow>(db, BY_ID, id);
}

export function pendingDeliveries(db: Db): DeliveryRow[] {
  return all<DeliveryRow>(db, PENDING);
}

export function recordTry(
  db: Db,
  id: number,
  t: { status: DeliveryStatus; error: string | null; nextAttemptAt: number | null; now: number },
): boolean {
  return run(db, RECORD_TRY, { id, ...t }).changes === 1;
}

export function giveUp(db: Db, id: number, error: string, now: number): boolean {
  return run(db, GIVE_UP, { id, error, now }).changes === 1;
}

export function listDeliveries(db: Db, opts: { limit?: number; status?: DeliveryStatus } = {}): HookDeliveryView[] {
  const limit = Math.min(Math.max(opts.limit ?? 100, 1), 10_000);
  const rows = opts.status
    ? all<DeliveryRow>(db, LIST_BY_STATUS, opts.status, limit)
    : all<DeliveryRow>(db, LIST_ALL, limit);
  return rows.map(toDeliveryView);
}
