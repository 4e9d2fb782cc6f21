/** The jobs table's row shape and its mapping to the contract's JobView. */
import type { JobView } from '../../../shared/domain.js';
import { isWaiting, type JobState } from '../../../shared/job-states.js';
import { priorityFromValue } from '../../../shared/priorities.js';
import type { TakeKey } from '../../../shared/take-key.js';

export interface JobRow extends TakeKey {
  id: string;
  shot_id: number;
  template_id: number;
  template_name: string;
  params_json: string;
  inputs_json: string;
  seed: number | null;
  seed_pinned: number;
  priority: number;
  rank: number;
  state: JobState;
  state_reason: string | null;
  error_class: string | null;
  attempts: number;
  max_attempts: number;
  current_attempt_id: string | null;
  instance_id: string | null;
  depends_on: string | null;
  vram_gb: number;
  tags_json: string;
  timeout_s: number;
  /** 1 while queued and no registered workstation could ever take it; meaningful only while queued. */
  blocked: number;
  /** Why it is blocked (null when not). */
  wait_reason: string | null;
  /** When the blocked mark was last lifted (null: never blocked): a burst wait counts from it. */
  unblocked_at: number | null;
  not_before: number | null;
  enqueued_at: number;
  started_at: number | null;
  finished_at: number | null;
  progress_node: string | null;
  progress_node_type: string | null;
  progress_value: number | null;
  progress_max: number | null;
  progress_at: number | null;
  created_at: number;
  updated_at: number;
  /** Who imported it (a person, or `local` for the solo operator); a new take keeps its job's. */
  imported_by: string;
  /** When the shot list wants it done (epoch ms); null when it named no time. A new take keeps its job's. */
  due_at: number | null;
  /** Who last acted on it (hold, cancel, bump…); null until someone did. */
  last_action_by: string | null;
}

/** The columns naming an attempt's or an asset's job, as the queries joining `jobs` select them. */
export interface JobNameColumns extends TakeKey {
  job_id: string;
}

/** The flag is left as it was when a job leaves the queue; it counts only while queued. */
export function isBlocked(r: Pick<JobRow, 'state' | 'blocked'>): boolean {
  return r.state === 'queued' && r.blocked === 1;
}

export function toJobView(r: JobRow): JobView {
  return {
    id: r.id,
    project: r.project,
    episode: r.episode,
    shot: r.shot,
    stage: r.stage,
    take: r.take,
    template: r.template_name,
    priority: priorityFromValue(r.priority),
    rank: r.rank,
    state: r.state,
    stateReason: r.state_reason,
    errorClass: r.error_class,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    // The workstation it runs on, or ran on last once finished: a waiting job (requeued by a stop, a
    // pause's pull-back or a retry) is on no workstation, whatever its last attempt's was.
    instanceId: isWaiting(r.state) ? null : r.instance_id,
    dependsOn: r.depends_on,
    seed: r.seed,
    vramGb: r.vram_gb,
    tags: JSON.parse(r.tags_json) as string[],
    // The stored part of why it waits; the live part is added where a farm's facts are at hand (wait-views.ts).
    blocked: isBlocked(r),
    waitReason: isBlocked(r) ? r.wait_reason : null,
    progress:
      r.progress_at !== null && r.state === 'running'
        ? {
            node: r.progress_node,
            nodeType: r.progress_node_type,
            value: r.progress_value ?? 0,
            max: r.progress_max ?? 0,
            at: r.progress_at,
          }
        : null,
    // Live parts, merged in by queries/job-live.ts for running jobs.
    attempt: null,
    contact: null,
    estimate: null,
    enqueuedAt: r.enqueued_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    updatedAt: r.updated_at,
    importedBy: r.imported_by,
    dueAt: r.due_at ?? null,
    lastActionBy: r.last_action_by,
  };
}
