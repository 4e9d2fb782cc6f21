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
import type { RunSample } from './run-model.js';

/** A sample with when its prompt reached the GPU (the Templates view plots them against time). */
export interface TimedRunSample extends RunSample {
  at: number;
}

/** The window the model is built from: enough for every template × GPU in use, bounded in cost. */
export const SAMPLE_WINDOW = 5_000;
/** A next prompt dispatched this soon after a run ended was waiting for the slot (the dispatcher's own pace). */
const WAITING_SLACK_MS = 1_000;

export function runSamples(db: Db, limit = SAMPLE_WINDOW): TimedRunSample[] {
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
      if (a.finished_at !== null && b.dispatched_at <= a.finished_at + WAITING_SLACK_MS)
        nextStart.set(a, b.started_at as number);
    }
  }
  const lastOn = new Map<string, string | null>();
  const out: TimedRunSample[] = [];
  for (const r of rows) {
    const ckpt = checkpoint(r);
    const where = r.instance_id ?? '';
    // The first run of a workstation in the window: cold when the window holds the whole history
    // (the workstation had run nothing before), unknown — counted warm — when older runs fell out.
    const cold = lastOn.has(where) ? lastOn.get(where) !== ckpt : whole;
    // Any attempt that reached the GPU loaded its checkpoint, failed or not.
    if (r.started_at !== null || r.outcome === 'completed') lastOn.set(where, ckpt);
    if (r.outcome !== 'completed' || r.finished_at === null || !r.gpu_name) continue;
    out.push({
      templateId: r.template_id,
      gpuName: r.gpu_name,
      bucket: bucketOf(r.params_json),
      ms: (nextStart.get(r) ?? r.finished_at) - (r.started_at ?? r.dispatched_at),
      cold,
      at: reached(r),
    });
  }
  return out;
}
