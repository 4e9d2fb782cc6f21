/**
 * Asking the server for the truth about one execution (SPEC §4.4): is it in /queue, or in
 * /history — and is that history entry THIS execution (same number, same attempt), not an older
 * run of the same prompt id?
 */
import type { ComfyClient } from '../../comfy/client.js';
import type { HistoryEntry, QueueItem } from '../../comfy/responses.js';

export const ATTEMPT_KEY = 'shotfarm_attempt';
export const JOB_KEY = 'shotfarm_job';

export interface Execution {
  promptId: string;
  attemptId: string;
  /** The number POST /prompt returned; null until known (recovery of a claim that may have been posted). */
  number: number | null;
}

function isOurs(extra: Record<string, unknown>, number: number, e: Execution): boolean {
  if (extra[ATTEMPT_KEY] !== undefined) return extra[ATTEMPT_KEY] === e.attemptId;
  return e.number !== null && number === e.number;
}

export type WatchState =
  /** `behindOurs`: what runs on the server now is one of Shotfarm's prompts (the one this waits behind, with prefetch). */
  | { kind: 'queued'; position: number; item: QueueItem; behindOurs: boolean }
  | { kind: 'running'; item: QueueItem }
  | { kind: 'finished'; entry: HistoryEntry }
  | { kind: 'absent' };

/** Queue first, then history: a prompt leaves the queue only once its history entry is written. */
export async function watchExecution(client: ComfyClient, e: Execution, signal?: AbortSignal): Promise<WatchState> {
  const opts = signal ? { signal } : {};
  const q = await client.getQueue(opts);
  const running = q.running.find((i) => i.promptId === e.promptId && isOurs(i.extraData, i.number, e));
  if (running) return { kind: 'running', item: running };
  const pendingIdx = q.pending.findIndex((i) => i.promptId === e.promptId && isOurs(i.extraData, i.number, e));
  if (pendingIdx >= 0) {
    const behindOurs = q.running.some((i) => i.extraData[ATTEMPT_KEY] !== undefined);
    return { kind: 'queued', position: pendingIdx, item: q.pending[pendingIdx] as QueueItem, behindOurs };
  }
  const entry = await client.getHistory(e.promptId, opts);
  if (entry && isOurs(entry.extraData, entry.number, e)) return { kind: 'finished', entry };
  return { kind: 'absent' };
}

/**
 * After the run's end was seen: history first — the usual answer, one request — and only if this
 * execution is not there yet, the queue-then-history order above (it may be in the window between
 * `execution_success` and the history write, or have just left the queue between the two reads).
 */
export async function watchEnd(client: ComfyClient, e: Execution, signal?: AbortSignal): Promise<WatchState> {
  const entry = await client.getHistory(e.promptId, signal ? { signal } : {});
  if (entry && isOurs(entry.extraData, entry.number, e)) return { kind: 'finished', entry };
  return watchExecution(client, e, signal);
}

/** A successful run of this job's prompt from any earlier attempt of the same take (catch-up, SPEC §4.2). */
export function successfulRunOfJob(entry: HistoryEntry | null, jobId: string): boolean {
  return entry !== null && entry.extraData[JOB_KEY] === jobId && entry.status?.statusStr === 'success';
}

/** The terminal message of a finished run, from its history status. */
export function terminalMessage(entry: HistoryEntry): { type: string; data: Record<string, unknown> } | null {
  const msgs = entry.status?.messages ?? [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i] as unknown;
    if (
      Array.isArray(m) &&
      typeof m[0] === 'string' &&
      ['execution_error', 'execution_interrupted', 'execution_success'].includes(m[0])
    ) {
      return { type: m[0], data: (m[1] ?? {}) as Record<string, unknown> };
    }
  }
  return null;
}
