// Turns validated ComfyUI bodies into the client's typed, camelCase results. Pure (no I/O) so
// the recorded fixtures can be run through exactly the code the client uses.
import type { z } from 'zod';
import { ComfyRequestError } from './observation.js';
import {
  HistorySchema,
  PromptErrorBodySchema,
  PromptSuccessSchema,
  QueueSchema,
  type HistoryStatus,
  type NodeError,
} from './schemas.js';
import type { QueueItemSchema, HistoryEntrySchema } from './schemas.js';

/** Validates `body` or throws ComfyRequestError `malformed` naming the route and the first issue. */
export function validate<S extends z.ZodType>(schema: S, body: unknown, route: string): z.output<S> {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  // The path only (keys may come from the answer: kept short); never the offending value.
  const path = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '';
  const where = path ? ` at ${path.length > 80 ? `${path.slice(0, 80)}…` : path}` : '';
  throw new ComfyRequestError({ kind: 'malformed', detail: `${issue?.message ?? 'invalid'}${where}` }, route);
}

// ---------- POST /prompt ----------

export type NodeErrors = Record<string, NodeError>;

/** The structured 400 error, normalised across protocol generations. */
export interface PromptError {
  /**
   * ComfyUI's `error.type` (`missing_node_type`, `invalid_prompt`, `prompt_outputs_failed_validation`,
   * …). Old servers send a bare string instead of an object; that becomes type `'unstructured'`
   * with the string as message.
   */
  type: string;
  message: string;
  details: string;
  extraInfo: Record<string, unknown>;
}

export type PostPromptResult =
  /** Queued. `nodeErrors` can be non-empty: invalid outputs were dropped, the rest will run. */
  | { ok: true; promptId: string; number: number; nodeErrors: NodeErrors }
  /** Rejected by validation; nothing was queued. */
  | { ok: false; status: 400; error: PromptError; nodeErrors: NodeErrors };

export function parsePromptSuccess(body: unknown, route = 'POST /prompt'): PostPromptResult {
  const v = validate(PromptSuccessSchema, body, route);
  return { ok: true, promptId: v.prompt_id, number: v.number, nodeErrors: v.node_errors };
}

export function parsePromptRejection(body: unknown, route = 'POST /prompt'): PostPromptResult {
  const v = validate(PromptErrorBodySchema, body, route);
  const error: PromptError =
    typeof v.error === 'string'
      ? { type: 'unstructured', message: v.error, details: '', extraInfo: {} }
      : { type: v.error.type, message: v.error.message, details: v.error.details, extraInfo: v.error.extra_info };
  return { ok: false, status: 400, error, nodeErrors: v.node_errors };
}

const OLD_MISSING_NODE = /^Cannot execute because node (.+) does not exist\.$/;

/**
 * The class_type a 400 says is not installed, from either generation: newer
 * `missing_node_type` carries it in `extra_info.class_type`; 0.3.x says
 * `invalid_prompt` "Cannot execute because node X does not exist.". Null otherwise (including a
 * node without any class_type, where there is no name to report).
 */
export function missingNodeClassType(error: PromptError): string | null {
  if (error.type === 'missing_node_type') {
    const cls = error.extraInfo['class_type'];
    return typeof cls === 'string' ? cls : null;
  }
  if (error.type === 'invalid_prompt') return OLD_MISSING_NODE.exec(error.message)?.[1] ?? null;
  return null;
}

// ---------- GET /queue ----------

/** A prompt as the server keeps it, queued or stored in /history (its `[number, prompt_id, …]` tuple). */
export interface QueueItem {
  /**
   * Execution priority; lower runs first. Unique per POST unless the client supplied `number`, so
   * in /history it tells re-runs of the same id apart (fence on it).
   */
  number: number;
  promptId: string;
  prompt: Record<string, unknown>;
  extraData: Record<string, unknown>;
  outputsToExecute: string[];
}

export interface QueueSnapshot {
  running: QueueItem[];
  /** Sorted by `[number, promptId]` — the server's own heap order (its raw list is not sorted). */
  pending: QueueItem[];
}

function toQueueItem(t: z.output<typeof QueueItemSchema>): QueueItem {
  const [number, promptId, prompt, extraData, outputsToExecute] = t;
  return { number, promptId, prompt, extraData, outputsToExecute };
}

/** Python's heap compares tuples: number first, then prompt_id as a string (code-point order). */
export function compareQueueItems(a: QueueItem, b: QueueItem): number {
  if (a.number !== b.number) return a.number - b.number;
  return a.promptId < b.promptId ? -1 : a.promptId > b.promptId ? 1 : 0;
}

export function parseQueue(body: unknown, route = 'GET /queue'): QueueSnapshot {
  const v = validate(QueueSchema, body, route);
  return {
    running: v.queue_running.map(toQueueItem),
    pending: v.queue_pending.map(toQueueItem).sort(compareQueueItems),
  };
}

// ---------- GET /history ----------

/** The run stored under a prompt id: the prompt as queued, and what it produced. */
export interface HistoryEntry extends QueueItem {
  outputs: Record<string, Record<string, unknown>>;
  /** Absent on very old servers. `status_str` is `success` or `error` (interrupts are `error`). */
  status: { statusStr: string; completed: boolean; messages: HistoryStatus['messages'] } | null;
  meta: Record<string, unknown> | null;
}

function toHistoryEntry(key: string, e: z.output<typeof HistoryEntrySchema>): HistoryEntry {
  return {
    ...toQueueItem(e.prompt),
    // The map key is the id the server stores under; it equals the tuple's prompt_id in practice.
    promptId: key,
    outputs: e.outputs,
    status: e.status
      ? { statusStr: e.status.status_str, completed: e.status.completed, messages: e.status.messages }
      : null,
    meta: e.meta ?? null,
  };
}

/**
 * All entries in the server's order. Caveat: JS objects list integer-like keys first, so a
 * prompt_id such as "12345" would move to the front; Shotfarm's ids are UUIDs.
 */
export function parseHistoryList(body: unknown, route = 'GET /history'): HistoryEntry[] {
  const v = validate(HistorySchema, body, route);
  return Object.entries(v).map(([k, e]) => toHistoryEntry(k, e));
}

/** GET /history/{id}: `{}` (200) means "not in history" → null. */
export function parseHistoryEntry(body: unknown, promptId: string, route: string): HistoryEntry | null {
  const v = validate(HistorySchema, body, route);
  const e = v[promptId];
  return e ? toHistoryEntry(promptId, e) : null;
}

/** A file reference found in an output (`images`, `gifs`, `audio`, …): what /view needs. */
export interface OutputFileRef {
  nodeId: string;
  /** The output key it was listed under (`images`, `gifs`, …). */
  key: string;
  filename: string;
  subfolder: string;
  type: string;
}

/**
 * Every `{filename, subfolder, type}` object in a history entry's outputs, whatever the node
 * calls the list — video nodes use `gifs`/`videos`, audio nodes `audio`.
 */
export function outputFiles(outputs: HistoryEntry['outputs']): OutputFileRef[] {
  const out: OutputFileRef[] = [];
  for (const [nodeId, ui] of Object.entries(outputs)) {
    for (const [key, list] of Object.entries(ui)) {
      if (!Array.isArray(list)) continue;
      for (const f of list as unknown[]) {
        if (typeof f !== 'object' || f === null) continue;
        const { filename, subfolder, type } = f as Record<string, unknown>;
        if (typeof filename !== 'string') continue;
        out.push({
          nodeId,
          key,
          filename,
          subfolder: typeof subfolder === 'string' ? subfolder : '',
          type: typeof type === 'string' ? type : 'output',
        });
      }
    }
  }
  return out;
}
