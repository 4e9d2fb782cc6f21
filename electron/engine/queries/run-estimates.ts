/**
 * How long a running job will probably take: the median of the latest completed runs of the same
 * template version on the same GPU model (dispatch to end). The views carry it for running jobs
 * only. The answer is cached per template version and GPU model, since the views are built for
 * every change of every running job: a completed job marks the answers stale, and a stale answer
 * is looked up again at most once a second (at once while there was none), so a busy farm pays
 * for a lookup per second per template and GPU model, not per completion.
 */
import type { RunEstimate } from '../../../shared/domain.js';
import { completedRunTimes } from '../store/attempt-store.js';
import type { Db } from '../store/database.js';

/** The median of the last RUNS completed runs. */
const RUNS = 25;
/** The longest an answer is kept without a completion, and the least time between lookups after one. */
const TTL_MS = 60_000;
const STALE_MIN_MS = 1_000;

/** The middle value (the mean of the two middle ones for an even count); null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

interface Cached {
  at: number;
  value: RunEstimate | null;
  /** A job completed since: the median may have moved. */
  stale: boolean;
}

export class RunEstimates {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly db: Db,
    private readonly ttlMs = TTL_MS,
  ) {}

  /** A job completed: its run may move some median. */
  completed(): void {
    for (const c of this.cache.values()) c.stale = true;
  }

  of(templateId: number, gpuName: string, now: number): RunEstimate | null {
    const key = `${templateId}\u001f${gpuName}`;
    const hit = this.cache.get(key);
    const fresh =
      hit && now - hit.at < this.ttlMs && !(hit.stale && (hit.value === null || now - hit.at >= STALE_MIN_MS));
    if (hit && fresh) return hit.value;
    const times = completedRunTimes(this.db, templateId, gpuName, RUNS).filter((ms) => ms >= 0);
    const typical = median(times);
    const value = typical === null ? null : { typicalMs: Math.round(typical), runs: times.length, gpuName };
    // Bounded: a farm has a handful of templates and GPU models; drop everything should it grow odd.
    if (this.cache.size > 500) this.cache.clear();
    this.cache.set(key, { at: now, value, stale: false });
    return value;
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
