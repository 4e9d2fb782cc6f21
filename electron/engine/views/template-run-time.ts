/**
 * `templates.runTimes`: what the run-time model (forecast/run-model.ts) learned of a template
 * version's run time, per GPU model — the median and p90 of its warm runs from their real start,
 * the cold starts (runs that loaded their checkpoint) apart, from the same samples the model is made
 * of (forecast/run-samples.ts). Below the model's own threshold of warm runs it shows no figure.
 */
import type { TemplateGpuRunTime, TemplateRunTimeView } from '../../../shared/template-run-time.js';
import { MIN_RUNS, quantile } from '../forecast/run-model.js';
import { runSamples, SAMPLE_WINDOW, type TimedRunSample } from '../forecast/run-samples.js';
import type { Db } from '../store/database.js';
import type { StoredTemplate } from '../store/template-store.js';

/** The Templates panel asks once per template: one read of the recent attempts serves them all. */
const REUSE_MS = 5_000;
const recent = new WeakMap<Db, { at: number; samples: TimedRunSample[] }>();

function samplesNow(db: Db, now: number): TimedRunSample[] {
  const kept = recent.get(db);
  if (kept && now - kept.at >= 0 && now - kept.at < REUSE_MS) return kept.samples;
  const samples = runSamples(db);
  recent.set(db, { at: now, samples });
  return samples;
}

const ascending = (xs: number[]): number[] => xs.sort((a, b) => a - b);
const ms = (x: number | null): number | null => (x === null ? null : Math.round(x));

/** The template version's completed runs in the model's window (in the order they reached their GPU). */
export function runsOfTemplate(db: Db, t: StoredTemplate, now: number): TimedRunSample[] {
  return samplesNow(db, now).filter((s) => s.templateId === t.id && Number.isFinite(s.ms) && s.ms >= 0);
}

export function templateRunTimeView(db: Db, t: StoredTemplate, now: number): TemplateRunTimeView {
  const byGpu = new Map<string, { warm: number[]; cold: number[] }>();
  for (const s of runsOfTemplate(db, t, now)) {
    const pile = byGpu.get(s.gpuName) ?? { warm: [], cold: [] };
    (s.cold ? pile.cold : pile.warm).push(s.ms);
    byGpu.set(s.gpuName, pile);
  }
  const gpus = [...byGpu.keys()].sort().map((gpu): TemplateGpuRunTime => {
    const { warm, cold } = byGpu.get(gpu) as { warm: number[]; cold: number[] };
    const w = ascending(warm);
    const enough = w.length >= MIN_RUNS;
    return {
      gpu,
      runs: w.length,
      p50Ms: enough ? ms(quantile(w, 0.5)) : null,
      p90Ms: enough ? ms(quantile(w, 0.9)) : null,
      coldRuns: cold.length,
      coldMs: ms(quantile(ascending(cold), 0.5)),
    };
  });
  return { name: t.name, version: t.version, templateId: t.id, minRuns: MIN_RUNS, window: SAMPLE_WINDOW, gpus };
}
