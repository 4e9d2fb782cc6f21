/**
 * RunPod burst as the forecast counts it (docs/forecast.md#runpod-burst): the endpoints are extra
 * slots the scheduler uses by its burst policy (pools/runpod/burst-policy.ts) — a job goes to an
 * endpoint only when the LAN would not start it sooner, once it has waited burst_after_s (a rush job
 * at once when no LAN slot is free), on an endpoint whose tags and VRAM fit, up to its workers, and
 * only while the day's cloud spend is under the daily budget (per UTC day; the budget is whole again
 * the next day). Each cloud run costs what the engine bills for it (runpod-cost.ts: RunPod's delay
 * plus the run, in whole seconds, at the endpoint's price). The forecast counts a run's cost when it
 * is sent — the engine counts it when it ends, so it may send up to one more run per worker than the
 * forecast did before the budget shows as spent. Pure.
 */
import { PRIORITY_VALUE } from '../../../shared/priorities.js';
import { attemptCost, utcDayStart } from '../pools/runpod/runpod-cost.js';

export interface SimEndpoint {
  id: string;
  name: string;
  /** Its GPU model as registered (the run-time model's key); null: the template's own runs stand in. */
  gpuName: string | null;
  tags: readonly string[];
  /** Its VRAM as registered; null: any job fits. */
  vramGb: number | null;
  /** When each worker is free (a running cloud attempt's expected end, or now). */
  freeAt: number[];
  /** From sending a job to its real start: RunPod's queue and cold start, as measured there (billed). */
  delayMs: number;
  pricePerHourUsd: number;
}

export interface SimBurst {
  /** burst_after_s in ms. */
  afterMs: number;
  endpoints: readonly SimEndpoint[];
  budgetUsdPerDay: number;
  /** Today's (UTC) cloud spend so far, farm-wide. */
  spentTodayUsd: number;
}

/** What the forecast sent to the cloud: how many runs, what they would cost, when the budget ran out. */
export interface CloudUse {
  jobs: number;
  costUsd: number;
  /** When a job that would have gone to the cloud found the day's budget spent; null when it never did. */
  budgetOutAt: number | null;
}

/** A job's run there: how long its worker is held (RunPod's delay + the run) and what that costs. */
export interface CloudRun {
  holdMs: number;
  costUsd: number;
}

export function cloudRun(ep: SimEndpoint, runMs: number): CloudRun {
  return { holdMs: ep.delayMs + runMs, costUsd: attemptCost(ep.delayMs, runMs, ep.pricePerHourUsd).costUsd };
}

export function endpointFitsJob(ep: SimEndpoint, job: { vramGb: number; tags: readonly string[] }): boolean {
  return (ep.vramGb === null || job.vramGb <= ep.vramGb) && job.tags.every((t) => ep.tags.includes(t));
}

/**
 * When the burst policy would first let this job go to an endpoint: after it has waited
 * burst_after_s since it was queued (and is ready), or, for a rush job, as soon as it is ready while
 * no LAN slot is free by then.
 */
export function burstEligibleAt(
  job: { priority: number; enqueuedAt: number },
  readyAt: number,
  lanStart: number,
  afterMs: number,
): number {
  if (job.priority >= PRIORITY_VALUE.rush && lanStart > readyAt) return readyAt;
  return Math.max(readyAt, job.enqueuedAt + afterMs);
}

const DAY_MS = 86_400_000;

/** The day's budget as the forecast spends it, day by day (UTC). */
export class CloudBudget {
  private readonly spent = new Map<number, number>();
  readonly use: CloudUse = { jobs: 0, costUsd: 0, budgetOutAt: null };

  constructor(
    private readonly b: SimBurst,
    now: number,
  ) {
    this.spent.set(utcDayStart(now), b.spentTodayUsd);
  }

  /** Spent on the UTC day of `at`. */
  spentOn(at: number): number {
    return this.spent.get(utcDayStart(at)) ?? 0;
  }

  /** What may still be spent on the day of `at` (the engine sends while the spend is under the budget). */
  leftOn(at: number): number {
    return Math.max(0, this.b.budgetUsdPerDay - this.spentOn(at));
  }

  /** A job may be sent at `at`: the day's spend is under the budget; else the first such refusal is noted. */
  allows(at: number): boolean {
    if (this.spentOn(at) < this.b.budgetUsdPerDay) return true;
    this.runsOut(at);
    return false;
  }

  /**
   * The earliest time from `at` a job may be sent: `at` while the day's spend is under the budget,
   * else the start of the next UTC day with budget left (the refusal noted); null past a week.
   */
  openFrom(at: number): number | null {
    if (this.allows(at)) return at;
    let day = utcDayStart(at);
    for (let i = 0; i < 7; i++) {
      day += DAY_MS;
      if (this.spentOn(day) < this.b.budgetUsdPerDay) return day;
    }
    return null;
  }

  /** The budget is found spent at `at` (the earliest such time is kept). */
  runsOut(at: number): void {
    if (this.use.budgetOutAt === null || at < this.use.budgetOutAt) this.use.budgetOutAt = at;
  }

  spend(at: number, jobs: number, costUsd: number): void {
    const day = utcDayStart(at);
    this.spent.set(day, (this.spent.get(day) ?? 0) + costUsd);
    this.use.jobs += jobs;
    this.use.costUsd += costUsd;
  }
}
