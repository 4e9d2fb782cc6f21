/**
 * How long a job will probably take: the run-time model (forecast/run-model.ts) — the median and p90
 * of the latest completed runs of the same template version on the same GPU model and parameter
 * bucket, from the prompt's real start, cold starts apart. The views carry it for running jobs;
 * the forecast (forecast/forecaster.ts) reads the same model for the queue. The model is built
 * once and shared, since the views are built for every change of every running job: a completed
 * job marks it stale, and a stale model is rebuilt at most once every few seconds (at once while
 * there was none), so a busy farm pays for one query of the recent attempts per few seconds, not
 * per completion.
 */
import type { RunEstimate } from '../../../shared/domain.js';
import { RunModel } from '../forecast/run-model.js';
import { bucketOf } from '../forecast/run-buckets.js';
import { readRuns } from '../forecast/run-samples.js';
import type { Db } from '../store/database.js';

/** The longest the model is kept without a completion, and the least time between rebuilds after one. */
const TTL_MS = 60_000;
const STALE_MIN_MS = 5_000;

/** The middle value (the mean of the two middle ones for an even count); null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export class RunEstimates {
  private built: { at: number; model: RunModel } | null = null;
  /** A job completed since the build: the figures may have moved. */
  private stale = false;

  constructor(
    private readonly db: Db,
    private readonly ttlMs = TTL_MS,
  ) {}

  /** A job completed: its run may move some figure. */
  completed(): void {
    this.stale = true;
  }

  /** The model as of now (rebuilt when old, or stale and not rebuilt in the last few seconds). */
  model(now: number): RunModel {
    const b = this.built;
    const fresh =
      b && now - b.at < this.ttlMs && !(this.stale && (b.model.samples === 0 || now - b.at >= STALE_MIN_MS));
    if (b && fresh) return b.model;
    return this.rebuild(now);
  }

  /** Builds the model now (the forecast, itself computed at a bounded rate, wants the latest runs). */
  rebuild(now: number): RunModel {
    const runs = readRuns(this.db);
    const model = new RunModel(runs.samples, runs.wasted, runs.gaps);
    this.built = { at: now, model };
    this.stale = false;
    return model;
  }

  of(templateId: number, gpuName: string, paramsJson: string, now: number): RunEstimate | null {
    const f = this.model(now).figure(templateId, gpuName, bucketOf(paramsJson));
    if (!f) return null;
    return {
      typicalMs: f.p50Ms,
      p90Ms: f.p90Ms,
      runs: f.runs,
      gpuName,
      coldMs: f.coldMs,
      coldRuns: f.coldRuns,
      basis: f.source,
    };
  }
}

/** One cache per database connection, shared by every view builder of the engine. */
const perDb = new WeakMap<Db, RunEstimates>();

export function runEstimates(db: Db): RunEstimates {
  let e = perDb.get(db);
  if (!e) {
    e = new RunEstimates(db);
    perDb.set(db, e);
  }
  return e;
}
