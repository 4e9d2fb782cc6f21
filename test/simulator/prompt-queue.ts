// ComfyUI's PromptQueue (execution.py): a binary min-heap on [number, prompt_id], one running item,
// and an in-memory history. `GET /queue` serves the raw heap array, so clients see it unsorted,
// exactly like Python's heapq list. History keeps insertion order; re-used ids overwrite in place.

import type { Graph } from './validate.js';

/** `[number, prompt_id, prompt, extra_data, outputs_to_execute]`, as served by /queue and /history. */
export type QueueItem = [number, string, Graph, Record<string, unknown>, string[]];

export interface HistoryEntry {
  prompt: QueueItem;
  outputs: Record<string, unknown>;
  status: { status_str: 'success' | 'error'; completed: boolean; messages: Array<[string, Record<string, unknown>]> };
  meta: Record<string, { node_id: string; display_node: string; parent_node: null; real_node_id: string }>;
}

const MAXIMUM_HISTORY_SIZE = 10000;

function less(a: QueueItem, b: QueueItem): boolean {
  return a[0] !== b[0] ? a[0] < b[0] : a[1] < b[1];
}

export class PromptQueue {
  private heap: QueueItem[] = [];
  running: QueueItem | null = null;
  readonly history = new Map<string, HistoryEntry>();

  get pending(): readonly QueueItem[] {
    return this.heap;
  }
  /** `queue_remaining`: pending + running. */
  get remaining(): number {
    return this.heap.length + (this.running ? 1 : 0);
  }

  put(item: QueueItem): void {
    const h = this.heap;
    h.push(item);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  /** Pops the smallest item and marks it running. */
  take(): QueueItem | null {
    const h = this.heap;
    if (h.length === 0) return null;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      this.siftDown(0);
    }
    this.running = top;
    return top;
  }

  private siftDown(start: number): void {
    const h = this.heap;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && less(h[l]!, h[m]!)) m = l;
      if (r < h.length && less(h[r]!, h[m]!)) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }

  private reheap(): void {
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  /** Removes the first pending item with this id; running items are untouched. */
  deletePending(promptId: string): boolean {
    const i = this.heap.findIndex((it) => it[1] === promptId);
    if (i < 0) return false;
    this.heap.splice(i, 1);
    this.reheap();
    return true;
  }

  clearPending(): void {
    this.heap = [];
  }

  finish(entry: HistoryEntry): void {
    if (this.history.size >= MAXIMUM_HISTORY_SIZE) {
      const oldest = this.history.keys().next().value;
      if (oldest !== undefined) this.history.delete(oldest);
    }
    this.history.set(entry.prompt[1], entry);
    this.running = null;
  }

  /** `GET /history?max_items&offset` with ComfyUI's arithmetic (no params: everything). */
  getHistory(maxItems: number | null, offset: number): Record<string, HistoryEntry> {
    const out: Record<string, HistoryEntry> = {};
    let start = offset;
    if (start < 0 && maxItems !== null) start = this.history.size - maxItems;
    let i = 0;
    for (const [k, v] of this.history) {
      if (i >= start) {
        out[k] = v;
        if (maxItems !== null && Object.keys(out).length >= maxItems) break;
      }
      i++;
    }
    return out;
  }
}
