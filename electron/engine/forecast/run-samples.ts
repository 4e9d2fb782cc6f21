/**
 * The run-time model's samples from the store: the latest ended attempts, each workstation's in
 * the order they reached its GPU, so a completed run whose workstation last ran another checkpoint (or nothing we
 * know of) is marked cold — it paid the model load. Runs count from the prompt's real start on the
 * GPU (a prompt waiting behind another there, prefetched, has not started), else from dispatch.
 */
import type { Db } from '../store/database.js';
import { recentRuns, type RecentRunRow } from '../store/attempt-store.js';
import { templateById, type StoredTemplate } from '../store/template-store.js';
import { checkpointOfJob } from '../templates/checkpoint.js';
import { bucketOf } from './run-buckets.js';
import type { DispatchGap, RunSample, WastedRun } from './run-model.js';

/** A sample with when its prompt reached the GPU (the Templates view plots them against time). */
export interface TimedRunSample extends RunSample {
  at: number;
}

/** The window the model is built from: enough for every template × GPU in use, bounded in cost. */
export const SAMPLE_WINDOW = 5_000;
/** A next prompt dispatched this soon after a run ended was waiting for the slot (the dispatcher's own pace). */
const WAITING_SLACK_MS = 1_000;
/** A dispatch gap longer than its run and than this is not counted (the GPU likely waited for a stage, not the dispatcher). */
const GAP_FLOOR_MS = 5_000;

/** The completed runs the run-time model is built from, each with when it reached its GPU. */
export function runSamples(db: Db, limit = SAMPLE_WINDOW): TimedRunSample[] {
  return readRuns(db, limit).samples;
}

/** Attempts that ended without the job's result and were run again: a retry (an error, a timeout) or a lost workstation. */
const WASTED: Record<string, WastedRun['why'] | undefined> = { retry: 'retry', timeout: 'retry', lost: 'lost' };

/**
 * The completed runs, the attempts of the same window that were run again (their time is what the
 * farm's retries cost: the forecast's range widens by them), and each workstation's dispatch gaps:
 * after each completed run, how long its GPU stood idle while work was waiting (0 when the next
 * prompt was already waiting there: the run's time holds it).
 */
export function readRuns(
  db: Db,
  limit = SAMPLE_WINDOW,
): { samples: TimedRunSample[]; wasted: WastedRun[]; gaps: DispatchGap[] } {
  // In the order the runs reached their GPU: under prefetch two prompts go out in the same
  // millisecond, and a rush pulled ahead starts before one dispatched earlier — dispatch order would
  // call the wrong one cold. A run that never started keeps its dispatch time.
  const reached = (r: RecentRunRow): number => r.started_at ?? r.dispatched_at;
  const rows = recentRuns(db, limit).sort((a, b) => reached(a) - reached(b) || a.dispatched_at - b.dispatched_at);
  const templates = new Map<number, StoredTemplate | null>();
  const checkpoint = (r: RecentRunRow): string | null => {
    if (!templates.has(r.template_id)) templates.set(r.template_id, templateById(db, r.template_id));
    const t = templates.get(r.template_id);
    return t ? (checkpointOfJob(t.workflow, t.parameters, r.params_json) ?? `template:${r.template_id}`) : null;
  };
  const whole = rows.length < limit;
  // What a run costs its GPU slot: from its real start to the next prompt's start there, when that
  // one was already waiting (dispatched before this one ended, so the GPU never idled for lack of
  // work) — the farm's real pace, with its dispatch gaps, and without the output download that
  // overlaps the next run under prefetch; else from its real start to its end.
  const nextStart = new Map<RecentRunRow, number>();
  const gaps: DispatchGap[] = [];
  const byInstance = new Map<string, RecentRunRow[]>();
  for (const r of rows) {
    if (r.started_at === null || r.instance_id === null) continue;
    const runs = byInstance.get(r.instance_id);
    if (runs) runs.push(r);
    else byInstance.set(r.instance_id, [r]);
  }
  for (const runs of byInstance.values()) {
    runs.sort((a, b) => (a.started_at as number) - (b.started_at as number));
    for (let i = 0; i + 1 < runs.length; i++) {
      const [a, b] = [runs[i] as RecentRunRow, runs[i + 1] as RecentRunRow];
      if (a.finished_at !== null && b.dispatched_at <= a.finished_at + WAITING_SLACK_MS) {
        nextStart.set(a, b.started_at as number);
        // The gap is inside a's time already.
        if (a.outcome === 'completed') gaps.push({ instanceId: a.instance_id as string, ms: 0 });
      } else if (
        a.outcome === 'completed' &&
        a.finished_at !== null &&
        b.queued_at !== null &&
        b.queued_at <= a.finished_at
      ) {
        // b was queued when a ended, yet reached the GPU only later: the farm's dispatch gap, not
        // idleness. Bounded by a's own length (at least GAP_FLOOR_MS): queued_at is the job's enqueue
        // time, and a stage waiting on another was not ready then.
        const gap = Math.max(0, (b.started_at as number) - a.finished_at);
        const runMs = a.finished_at - (a.started_at as number);
        if (gap <= Math.max(GAP_FLOOR_MS, runMs)) gaps.push({ instanceId: a.instance_id as string, ms: gap });
      }
    }
  }
  const lastOn = new Map<string, string | null>();
  const out: TimedRunSample[] = [];
  const wasted: WastedRun[] = [];
  for (const r of rows) {
    const ckpt = checkpoint(r);
    const where = r.instance_id ?? '';
    // The first run of a workstation in the window: cold when the window holds the whole history
    // (the workstation had run nothing before), unknown — counted warm — when older runs fell out.
    const cold = lastOn.has(where) ? lastOn.get(where) !== ckpt : whole;
    // Any attempt that reached the GPU loaded its checkpoint, failed or not.
    if (r.started_at !== null || r.outcome === 'completed') lastOn.set(where, ckpt);
    const why = r.outcome === null ? undefined : WASTED[r.outcome];
    if (why && r.finished_at !== null) {
      wasted.push({ templateId: r.template_id, ms: Math.max(0, r.finished_at - r.dispatched_at), why });
      continue;
    }
    if (r.outcome !== 'completed' || r.finished_at === null || !r.gpu_name) continue;
    out.push({
      instanceId: where,
      // From sent to its real start: RunPod's queue and cold start on an endpoint (the forecast's burst), ~0 on the LAN.
      delayMs: r.started_at === null ? 0 : Math.max(0, r.started_at - r.dispatched_at),
      templateId: r.template_id,
      gpuName: r.gpu_name,
      bucket: bucketOf(r.params_json),
      ms: (nextStart.get(r) ?? r.finished_at) - (r.started_at ?? r.dispatched_at),
      cold,
      at: reached(r),
    });
  }
  return { samples: out, wasted, gaps };
}
