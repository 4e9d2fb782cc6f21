/**
 * What a forecast went by, per GPU model, against what the farm then did: the run-time model's
 * figure for a template (mean, warm runs, where it came from, the cold median) when the forecast
 * was made, and afterwards each GPU model's real pace (from a completed run's real start to the
 * next start on its workstation: what a slot really costs, gaps included). Printed by the forecast
 * bench so a miss can be traced to its cause (few samples, a borrowed figure, a pace that moved).
 */
import { RunModel } from '../../../electron/engine/forecast/run-model.js';
import { readRuns } from '../../../electron/engine/forecast/run-samples.js';
import type { Db } from '../../../electron/engine/store/database.js';
import { all } from '../../../electron/engine/store/statements.js';

const avg = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);

/** The run-time model's figure for the template on each GPU model, as one line each. */
export function modelLines(db: Db, templateId: number, gpuNames: readonly string[]): string[] {
  const runs = readRuns(db);
  const samples = runs.samples;
  const model = new RunModel(samples, runs.wasted, runs.gaps);
  const gap = model.gapOf('');
  const gapLine = `dispatch gap after a run (farm-wide): ${gap ? `mean ${gap.meanMs.toFixed(0)} ms, sd ${gap.sdMs.toFixed(0)}` : 'none measured'} over ${runs.gaps.length} runs`;
  return [
    ...gpuNames.map((gpu) => {
      const mine = samples.filter((s) => s.templateId === templateId && s.gpuName === gpu);
      const f = model.figure(templateId, gpu, '*');
      return `${gpu}: ${mine.filter((s) => !s.cold).length} warm + ${mine.filter((s) => s.cold).length} cold samples → ${
        f
          ? `mean ${f.meanMs} ms (sd ${f.sdMs}, pace ±${f.paceSdMs}, ${f.source}${f.coldMs !== null ? `, cold ${f.coldMs}` : ''})`
          : 'no figure'
      }`;
    }),
    gapLine,
  ];
}

interface AttemptRow {
  instance_id: string;
  gpu_name: string;
  started_at: number;
  outcome: string | null;
}

/** Each GPU model's real pace from `from` on: the mean of a completed run's real start to the next start on its workstation. */
export function paceLines(db: Db, from: number): string[] {
  const rows = all<AttemptRow>(
    db,
    `SELECT instance_id, gpu_name, started_at, outcome FROM attempts
      WHERE started_at IS NOT NULL AND started_at >= ? ORDER BY started_at`,
    from,
  );
  const byInstance = new Map<string, AttemptRow[]>();
  for (const r of rows) byInstance.set(r.instance_id, [...(byInstance.get(r.instance_id) ?? []), r]);
  const byGpu = new Map<string, number[]>();
  for (const runs of byInstance.values())
    for (let i = 0; i + 1 < runs.length; i++) {
      const [a, b] = [runs[i] as AttemptRow, runs[i + 1] as AttemptRow];
      if (a.outcome !== 'completed') continue;
      byGpu.set(a.gpu_name, [...(byGpu.get(a.gpu_name) ?? []), b.started_at - a.started_at]);
    }
  return [...byGpu].map(([gpu, xs]) => `${gpu}: real pace ${avg(xs).toFixed(0)} ms over ${xs.length} runs`);
}
