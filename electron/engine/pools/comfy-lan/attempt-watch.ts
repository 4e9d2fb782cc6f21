/**
 * What an operator watches of a running prompt beyond its phase: how far through its workflow it
 * is (node k of N: the nodes it has started, cached ones counted as done) and the latest preview
 * image ComfyUI sent (binary frames, docs/comfyui-protocol.md §3). Fed by the attempt's follower
 * through one call per event (attempt-follow.ts), held in memory only: a preview is a hint for the
 * eye, never a result, and nothing here is written to the store.
 */
import type { FollowEvent } from '../../comfy/ws-events.js';
import type { PreviewMediaType } from '../../../../shared/domain.js';

/** A workflow as far as counting its nodes goes. */
type Nodes = Readonly<Record<string, unknown>>;

export interface WatchedPreview {
  attemptId: string;
  seq: number;
  at: number;
  mediaType: PreviewMediaType;
  bytes: Uint8Array;
}

/** What the views ask: node counts of an open attempt, the latest preview of a job. */
export interface AttemptWatchView {
  nodes(attemptId: string): { nodesDone: number; nodesTotal: number } | null;
  preview(jobId: string): WatchedPreview | null;
}

interface Watched {
  jobId: string;
  total: number;
  reached: Set<string>;
  preview: WatchedPreview | null;
}

/** Largest preview kept (a decoded latent preview is tens of KB; anything far bigger is not a preview). */
const MAX_PREVIEW_BYTES = 4 * 1024 * 1024;

export class AttemptWatch implements AttemptWatchView {
  private readonly byAttempt = new Map<string, Watched>();
  private readonly byJob = new Map<string, string>();
  private seq = 0;

  /** One event of an attempt's follower; `workflow` is the prompt it posted (its node count is N). */
  observe(jobId: string, attemptId: string, workflow: Nodes | null, ev: FollowEvent, now: number): void {
    let w = this.byAttempt.get(attemptId);
    if (!w) {
      w = { jobId, total: 0, reached: new Set(), preview: null };
      this.byAttempt.set(attemptId, w);
      this.byJob.set(jobId, attemptId);
    }
    if (workflow) w.total = Object.keys(workflow).length;
    switch (ev.type) {
      case 'execution_start':
        w.reached.clear();
        break;
      case 'execution_cached':
        for (const n of ev.data.nodes) w.reached.add(n);
        break;
      case 'executing':
        if (ev.data.node) w.reached.add(ev.data.node);
        break;
      case 'preview': {
        const mediaType = ev.format === 'png' ? 'image/png' : ev.format === 'jpeg' ? 'image/jpeg' : null;
        if (!mediaType || ev.bytes.byteLength === 0 || ev.bytes.byteLength > MAX_PREVIEW_BYTES) break;
        // A copy: the frame's bytes are a view into the socket's buffer.
        w.preview = { attemptId, seq: ++this.seq, at: now, mediaType, bytes: Uint8Array.from(ev.bytes) };
        break;
      }
      default:
        break;
    }
  }

  nodes(attemptId: string): { nodesDone: number; nodesTotal: number } | null {
    const w = this.byAttempt.get(attemptId);
    if (!w || w.total === 0 || w.reached.size === 0) return null;
    return { nodesDone: Math.min(w.reached.size, w.total), nodesTotal: w.total };
  }

  preview(jobId: string): WatchedPreview | null {
    const id = this.byJob.get(jobId);
    return id ? (this.byAttempt.get(id)?.preview ?? null) : null;
  }

  /** The attempt's runner is done: forget it (and its image). */
  end(attemptId: string): void {
    const w = this.byAttempt.get(attemptId);
    if (!w) return;
    this.byAttempt.delete(attemptId);
    if (this.byJob.get(w.jobId) === attemptId) this.byJob.delete(w.jobId);
  }
}
