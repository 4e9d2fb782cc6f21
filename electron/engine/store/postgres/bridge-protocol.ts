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
  /**
   * The farm's one-engine lock: a session-level advisory lock on a connection of its own (so the
   * store's connection can come and go). Answers one row `{ held }`: true when this worker holds
   * it (taken now, or still held on a connection that answers), false when another session has it.
   * `shared`: the engines' lock, which any number of engines hold at once (several engines on one
   * farm) and which only a move into the database (`db migrate`, exclusive) keeps out.
   */
  | { op: 'farmLock'; key: number; shared?: boolean }
  /** Gives the farm's lock up (its connection closes). */
  | { op: 'farmUnlock' }
  /**
   * Listens on `channel` on the worker's notice connection (notice-link.ts), from now on and after
   * every reconnect; what it hears comes over the notices port (NoticeMessage). Answers one row
   * `{ listening }`: false when the first LISTEN failed (the link keeps trying).
   */
  | { op: 'listen'; channel: string }
  /**
   * A NOTIFY on the notice connection. Fire and forget: the worker never answers it (nothing waits),
   * and sends it before a later `close` ends the connection (requests are handled in order).
   */
  | { op: 'notify'; channel: string; payload: string }
  | { op: 'close' };

/** What the worker tells the engine thread on the notices port, whenever it happens. */
export type NoticeMessage =
  /** Another session's NOTIFY on the channel (this engine's own come back too: the payload says whose). */
  | { kind: 'notice'; payload: string }
  /** Notices may have been lost (the listening connection was lost, or listening started again): re-read. */
  | { kind: 'missed'; why: 'lost' | 'listening' };

/** Checks a message from the worker's notices port (a thread boundary). */
export function isNoticeMessage(v: unknown): v is NoticeMessage {
  if (v === null || typeof v !== 'object') return false;
  const m = v as Record<string, unknown>;
  if (m.kind === 'notice') return typeof m.payload === 'string';
  return m.kind === 'missed' && (m.why === 'lost' || m.why === 'listening');
}

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
  /** The channel a replaced worker listens on from its start (the engine listened before), or null. */
  listen: string | null;
}
