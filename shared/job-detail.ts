/**
 * What the job drawer shows beyond a queue row: the job's shot path, its template version, what its
 * prompt sends (`jobs.detail`), the latest preview image of a running prompt (`jobs.preview`), and
 * how long runs of its template usually take (a running job's `estimate`). Re-exported by domain.ts.
 */
import type { AssetView } from './assets.js';
import type { JobState } from './job-states.js';
import type { Priority } from './priorities.js';
import type { ParamValue } from './shot-list-schema.js';
import type { TakeKey } from './take-key.js';

/** A ComfyUI API-format workflow as a client sees it: nodes by id, each with its class and inputs. */
export type WorkflowJson = Record<
  string,
  { class_type: string; inputs: Record<string, unknown>; _meta?: { title?: string } }
>;

/** Where a parameter's value in the prompt comes from. */
export type ParameterSource = 'shot' | 'seed' | 'input' | 'template';

/** One template parameter as the prompt sends it. */
export interface ResolvedParameter {
  name: string;
  /** `nodeId.inputName` in the workflow. */
  path: string;
  value: ParamValue | null;
  /** shot: the shot list set it; seed: the job's seed; input: an uploaded file's name; template: left at the template's value. */
  source: ParameterSource;
}

/** A file uploaded to the workstation just before the prompt is posted. */
export interface JobInputView {
  param: string;
  /** The file on this machine. */
  file: string;
  /** What it is: `input "image"`, `keyframe take 2 output`. */
  what: string;
  /** The name the prompt gives it on the workstation (`shotfarm/<job id>/<file name>`). */
  sentAs: string;
}

/** One change of state, as the job's history records it. */
/** A state change in a job's history. */
export interface JobEventView {
  kind: 'state';
  from: JobState | null;
  to: JobState;
  reason: string | null;
  actor: string;
  at: number;
}

/** Why a job's place in the queue changed: a bump, a move to the top, or the undo of either. */
export const ORDER_CHANGE_WHYS = ['bump', 'top', 'undo'] as const;
export type OrderChangeWhy = (typeof ORDER_CHANGE_WHYS)[number];

/** A change of a job's priority or place in its priority (no state change), and who made it. */
export interface JobOrderChangeView {
  kind: 'order';
  fromPriority: Priority;
  toPriority: Priority;
  why: OrderChangeWhy;
  actor: string;
  at: number;
}

/** One line of a job's history: what happened to its state or to its place in the queue. */
export type JobHistoryEntry = JobEventView | JobOrderChangeView;

/** The words a person reads for an order change ("priority normal → rush", "moved to the top of high"). */
export function describeOrderChange(c: Pick<JobOrderChangeView, 'fromPriority' | 'toPriority' | 'why'>): string {
  const priority = c.fromPriority === c.toPriority ? null : `priority ${c.fromPriority} → ${c.toPriority}`;
  if (c.why === 'top') return `moved to the top of ${c.toPriority}`;
  if (c.why === 'undo') return priority ? `order restored: ${priority}` : 'order restored';
  return priority ?? `priority stays ${c.toPriority}`;
}

/** The part of a job's path the shot code carries: `sq010_sh020` is shot sh020 of sequence sq010. */
export function sequenceOf(shot: string): string | null {
  const cut = shot.indexOf('_');
  return cut > 0 ? shot.slice(0, cut) : null;
}

/** A take's place in the studio's tree, the sequence read from its shot code: the drawer's path, the same on both sides. */
export function takePathOf(t: TakeKey): TakeKey & { sequence: string | null } {
  return {
    project: t.project,
    episode: t.episode,
    sequence: sequenceOf(t.shot),
    shot: t.shot,
    stage: t.stage,
    take: t.take,
  };
}

/** `jobs.detail`: everything about one job that is not already in its view, its attempts or `jobs.why`. */
export interface JobDetail {
  jobId: string;
  /** project / episode / sequence / shot / stage / take. */
  path: ReturnType<typeof takePathOf>;
  template: {
    id: number;
    name: string;
    version: number;
    latestVersion: number;
    stage: string;
    hash: string;
    timeoutS: number;
  };
  /** Place in dispatch order among the queued jobs (1 = next); null when not queued. */
  queuePosition: number | null;
  seed: number | null;
  seedPinned: boolean;
  /** The shot list's parameter values, as imported. */
  parameters: Record<string, ParamValue>;
  /** Every template parameter with the value the prompt sends, built by the code an attempt posts with. */
  resolved: ResolvedParameter[];
  inputs: JobInputView[];
  /** The workflow as posted (its parameters applied); null when it cannot be built (then `problem` says why). */
  workflow: WorkflowJson | null;
  problem: string | null;
  /** The stage this one waits for. */
  dependency: { id: string; stage: string; take: number; state: JobState } | null;
  /** Output files in the ledger (completed jobs). */
  outputs: AssetView[];
  /** State and order history, newest first (at most 50). */
  events: JobHistoryEntry[];
}

/**
 * How long a job's template version usually runs on its GPU model at its parameters' size (the
 * run-time model): the median and p90 of earlier completed runs from their real start, cold starts
 * (a model load) apart.
 */
export interface RunEstimate {
  typicalMs: number;
  /** Nine runs in ten took at most this. */
  p90Ms: number;
  /** How many earlier (warm) runs the figures are of. */
  runs: number;
  gpuName: string;
  /** The median run that had to load its checkpoint first; null when none was seen. */
  coldMs: number | null;
  coldRuns: number;
  /** exact = this template, GPU model and size; gpu = this template and GPU model at any size; scaled = other GPU models' runs at this model's pace. */
  basis: 'exact' | 'gpu' | 'scaled';
}

export const PREVIEW_MEDIA_TYPES = ['image/jpeg', 'image/png'] as const;
export type PreviewMediaType = (typeof PREVIEW_MEDIA_TYPES)[number];

/** `jobs.preview`: the latest preview image ComfyUI sent for a running job's prompt. */
export interface JobPreview {
  jobId: string;
  attemptId: string;
  /** Grows with every new image of this attempt: ask with `since` to get bytes only when it changed. */
  seq: number;
  at: number;
  mediaType: PreviewMediaType;
  /** Base64 image bytes; null when the image is the one `since` named. */
  data: string | null;
}
