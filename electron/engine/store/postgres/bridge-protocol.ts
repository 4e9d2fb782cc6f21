/**
 * What the engine's thread and the PostgreSQL bridge's worker say to each other (sync-bridge.ts,
 * bridge-worker.ts). One request at a time: the engine posts it and sleeps on the shared flag until
 * the worker has posted the answer.
 *
 * A transaction is pinned to the connection it began on: BEGIN answers with that connection's
 * session id, and every later statement of the transaction carries it. The worker runs a statement
 * only on that session, so a connection lost mid-transaction can never let the rest of it run on
 * a fresh connection outside the transaction.
 */

export type BridgeRequest =
  /** One statement with `$n` parameters, prepared once per connection under `name`. */
  | { op: 'query'; name: string; text: string; values: unknown[]; session: string | null }
  /** Statements without parameters, as one simple query (DDL, several statements). */
  | { op: 'exec'; text: string; session: string | null }
  /** Starts a transaction with `text` (BEGIN …); the answer's session pins the rest of it. */
  | { op: 'begin'; text: string }
  /** COMMIT or ROLLBACK of the transaction on `session`. */
  | { op: 'end'; text: 'COMMIT' | 'ROLLBACK'; session: string }
  /** Answers at once without the database: the bridge's own cost (the bench). */
  | { op: 'ping' }
  | { op: 'close' };

export type BridgeAnswer =
  | { ok: true; rows: Record<string, unknown>[]; rowCount: number; session: string }
  | { ok: false; message: string; code: string; detail?: string };

/** Checks an answer from the worker thread (a boundary: never trusted blindly). */
export function isBridgeAnswer(v: unknown): v is BridgeAnswer {
  if (v === null || typeof v !== 'object') return false;
  const a = v as Record<string, unknown>;
  if (a.ok === true) return Array.isArray(a.rows) && typeof a.rowCount === 'number' && typeof a.session === 'string';
  return a.ok === false && typeof a.message === 'string' && typeof a.code === 'string';
}

/** The worker's start data. */
export interface BridgeWorkerData {
  url: string;
  /** Int32Array over a SharedArrayBuffer: [0] is 1 once an answer was posted. */
  flag: SharedArrayBuffer;
  /** Prefix of this worker's session ids (unique per worker, so a replaced worker's never match). */
  generation: number;
  connectTimeoutMs: number;
  /** Serializes writing transactions as SQLite's BEGIN IMMEDIATE does (pg_advisory_xact_lock). */
  writeLockKey: number;
}
