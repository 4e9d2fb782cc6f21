/**
 * Learned run time (issue 28 item 4), as the Templates view and `shotfarm templates show` see it:
 * per GPU model, the median and p90 of a template version's warm runs from their real start, the
 * cold starts (runs that loaded their checkpoint) apart. The engine's run-time model
 * (electron/engine/forecast/run-model.ts) makes these figures; this only carries them.
 */

/** One GPU model's learned run time for a template version. */
export interface TemplateGpuRunTime {
  gpu: string;
  /** Warm runs (their checkpoint already loaded) the median and p90 are of. */
  runs: number;
  /** Median and p90 of those runs, ms; null below `minRuns` ("not enough runs yet"). */
  p50Ms: number | null;
  p90Ms: number | null;
  /** Runs that loaded their checkpoint first, and their median (null: none seen). */
  coldRuns: number;
  coldMs: number | null;
}

/** `templates.runTimes`: what the farm learned of a template's run time, per GPU model (its latest version). */
export interface TemplateRunTimeView {
  name: string;
  version: number;
  templateId: number;
  /** Warm runs a GPU model needs before its median and p90 are shown (the model's own threshold). */
  minRuns: number;
  /** The model is made of the farm's latest this many ended attempts (all templates). */
  window: number;
  gpus: TemplateGpuRunTime[];
}

/** "median 1m 20s · p90 1m 42s of 23 runs", or why there is no figure yet — the CLI's and the view's words. */
export function runTimeWords(g: TemplateGpuRunTime, minRuns: number): string {
  const runs = `${g.runs.toLocaleString('en-US')} run${g.runs === 1 ? '' : 's'}`;
  if (g.p50Ms === null || g.p90Ms === null) return `not enough runs yet (${runs}; needs ${minRuns})`;
  return `median ${runLength(g.p50Ms)} · p90 ${runLength(g.p90Ms)} of ${runs}`;
}

/** "cold start 2m 05s (3 runs)" — the runs that loaded their model, kept apart; null when none were seen. */
export function coldWords(g: TemplateGpuRunTime): string | null {
  if (g.coldMs === null || g.coldRuns === 0) return null;
  return `cold start ${runLength(g.coldMs)} (${g.coldRuns.toLocaleString('en-US')} run${g.coldRuns === 1 ? '' : 's'})`;
}

/** A run's length at the precision that matters: "0.4 s", "42 s", "1 m 20 s", "2 h 05 m". */
export function runLength(ms: number): string {
  if (ms < 10_000) return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} m ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} m`;
}
