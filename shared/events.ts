/**
 * Events the engine publishes to its clients. The renderer never polls: its store is written by
 * these, batched by the transport (at most ~10 deliveries a second).
 */
import type { HookDeliveryView, InstanceView, JobProgress, JobView } from './domain.js';

export interface EventMap {
  /** A job row changed (state, priority, order, attempt). */
  'job.changed': { job: JobView };
  /** Progress of a running job; frequent, so it carries only what changed. */
  'job.progress': { jobId: string; progress: JobProgress };
  /** Many jobs changed at once (an import, a bulk action): clients refetch what they show. */
  'jobs.bulkChanged': { count: number };
  'instance.changed': { instance: InstanceView };
  'instance.removed': { id: string };
  /** A hook delivery finished (delivered, or failed for good after its retries). */
  'hook.delivery': { delivery: HookDeliveryView };
}

export type EventTopic = keyof EventMap;
export type EventListener<T extends EventTopic> = (payload: EventMap[T]) => void;
