/**
 * `jobs.preview`: the latest preview image ComfyUI sent for a running job's current attempt, held by
 * the farm in this process (pools/comfy-lan/attempt-watch.ts). Nothing for a job that is not running, or
 * whose preview is from an attempt that is no longer its current one. With `since` (the seq the
 * client has), the bytes are left out when there is nothing newer, so the drawer can ask often.
 */
import type { JobPreview } from '../../../shared/domain.js';
import type { AttemptWatchView } from '../pools/comfy-lan/attempt-watch.js';
import type { JobRow } from '../store/job-rows.js';

export function jobPreview(job: JobRow, watch: AttemptWatchView | null, since: number | undefined): JobPreview | null {
  if (job.state !== 'running' || !watch) return null;
  const p = watch.preview(job.id);
  if (!p || p.attemptId !== job.current_attempt_id) return null;
  return {
    jobId: job.id,
    attemptId: p.attemptId,
    seq: p.seq,
    at: p.at,
    mediaType: p.mediaType,
    data:
      since === p.seq ? null : Buffer.from(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength).toString('base64'),
  };
}
