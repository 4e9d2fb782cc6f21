/**
 * Named queries for `hook_deliveries` (migration 0002): one row per hook × job × terminal
 * transition, updated after each try, so the UI can list what failed and why.
 */
import type { Db } from '../store/database.js';
import { stmt } from '../store/statements.js';
import type { HookEvent } from '../../../shared/hooks.js';
import type { HookDeliveryView } from '../../../shared/domain.js';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

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
    id: r.id, hookId: r.hook_id, jobId: r.job_id, event: r.event, attempts: r.attempts, status: r.status, lastError: r.last_error,
    nextAttemptAt: r.next_attempt_at, createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

/** Queue a delivery; ignored when this hook was already queued for this transition (returns null). */
const INSERT = `INSERT OR IGNORE INTO hook_deliveries (hook_id, job_id, event, dedupe_key, payload_json, created_at, updated_at)
  VALUES (@hookId, @jobId, @event, @dedupeKey, @payloadJson, @now, @now)`;
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
  const r = stmt(db, INSERT).run(d);
  return r.changes === 1 ? Number(r.lastInsertRowid) : null;
}

export function deliveryRow(db: Db, id: number): DeliveryRow | undefined {
  return stmt(db, BY_ID).get(id) as DeliveryRow | undefined;
}

export function pendingDeliveries(db: Db): DeliveryRow[] {
  return stmt(db, PENDING).all() as DeliveryRow[];
}

export function recordTry(
  db: Db, id: number, t: { status: DeliveryStatus; error: string | null; nextAttemptAt: number | null; now: number },
): boolean {
  return stmt(db, RECORD_TRY).run({ id, ...t }).changes === 1;
}

export function giveUp(db: Db, id: number, error: string, now: number): boolean {
  return stmt(db, GIVE_UP).run({ id, error, now }).changes === 1;
}

export function listDeliveries(db: Db, opts: { limit?: number; status?: DeliveryStatus } = {}): HookDeliveryView[] {
  const limit = Math.min(Math.max(opts.limit ?? 100, 1), 10_000);
  const rows = (opts.status ? stmt(db, LIST_BY_STATUS).all(opts.status, limit) : stmt(db, LIST_ALL).all(limit)) as DeliveryRow[];
  return rows.map(toDeliveryView);
}
