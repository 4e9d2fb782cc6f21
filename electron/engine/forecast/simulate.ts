/**
 * The forecast's core: the waiting jobs played forward over the workstations, in dispatch order
 * (priority, the operator's rank, enqueue time; projects interleaved by fair share at each
 * priority below rush, as the dispatcher does: scheduler/fair-share.ts), each job to the slot that
 * frees first among those that can take it (VRAM, tags), for the run-time model's median — plus the
 * model load when the workstation last loaded another checkpoint. The spread of each job's end
 * adds up along its slot (independent runs: variances add), so the p90 of a long queue is not the
 * sum of p90s. A deep backlog comes as buckets (`count` > 1: like jobs counted in SQL, forecaster.ts):
 * a bucket's jobs take, one by one, the earliest start among the slots that fit — the same as
 * playing them singly — found at once by bisection on the time its last job starts (placeBucket),
 * so the cost is O(units × slots), whatever the jobs count.
 *
 * RunPod endpoints, when burst is allowed, are slots too, taken by the burst policy's rule
 * (burst-capacity.ts). The range: a job's p90 adds up three kinds of spread — each run's own (and
 * its retries'), independent, so it narrows relatively over a queue; the figure's pace uncertainty
 * (run-model.ts paceSd), shared by every run of a key, so it adds up linearly along a slot; and the
 * chance that a workstation goes away before the job ends, at the farm's observed rate.
 */
import { fairOrder } from '../scheduler/fair-share.js';
import {
  burstEligibleAt,
  CloudBudget,
  cloudRun,
  endpointFitsJob,
  type CloudUse,
  type SimBurst,
  type SimEndpoint,
} from './burst-capacity.js';
import { PRIORITY_VALUE } from '../../../shared/priorities.js';

/** z of the 90th percentile of a normal distribution. */
const Z90 = 1.2816;

export interface SimStation {
  id: string;
  gpuName: string;
  usableVramGb: number;
  tags: readonly string[];
  /** When each slot is expected to be free (a running prompt's expected end, or now). */
  freeAt: number[];
  /** Spread (variance, ms²) of each slot's free time. */
  freeVar?: number[];
  /** Its dispatch gap after each run (GPU idle while work waited), as measured: mean and sd. Absent: 0. */
  gapMs?: number;
  gapSdMs?: number;
  lastCheckpoint: string | null;
  /**
   * With prefetch: when the place behind what runs there opens — the prompt waiting there starts
   * (absent: now). The dispatcher fills a place the moment it opens, so the next job goes here if
   * this opens first, even where another GPU would start it sooner.
   */
  placeOpensAt?: number;
}

export interface SimJob {
  id: string;
  project: string;
  priority: number;
  rank: number;
  enqueuedAt: number;
  templateId: number;
  bucket: string;
  vramGb: number;
  tags: readonly string[];
  checkpoint: string | null;
  /** A job this one waits for (it starts after that one's end); null when none or already done. */
  dependsOn: string | null;
  /** How many like jobs this stands for (1 when absent); a bucket's end is its last job's. */
  count?: number;
  /** A bucket of jobs pending on others: played after everything else, as singles whose job comes later are. */
  waitsOnOthers?: boolean;
}

export interface SimFigure {
  /** Mean and standard deviation of a warm run (a queue adds up by these). */
  meanMs: number;
  sdMs: number;
  /** The median cold run; null when unknown. */
  coldMs: number | null;
  /** How far the mean may be off (one sd), shared by every run of the key: it adds up linearly. Absent: 0. */
  paceSdMs?: number;
  /** Expected time a job loses to retries at the template's observed failure rate, and its sd. Absent: 0. */
  retryMs?: number;
  retrySdMs?: number;
}

export interface SimInput {
  now: number;
  stations: readonly SimStation[];
  jobs: readonly SimJob[];
  figure(templateId: number, gpuName: string, bucket: string): SimFigure | null;
  /** What a job with no figure on any GPU is taken to run (the farm's median run, or a minute). */
  fallbackMs: number;
  /** RunPod endpoints the scheduler may burst to (burst allowed, healthy, budget left today); absent: the LAN alone. */
  burst?: SimBurst;
  /** How often a workstation goes away under a running prompt (per GPU-hour, as observed): widens the p90. */
  lossPerGpuHour?: number;
  /** The farm's prefetch setting: jobs are sent to the first place that opens (placeOpensAt), not to the slot that frees first. */
  prefetch?: boolean;
}

export interface SimEnd {
  /** Expected (median) end. */
  p50: number;
  /** Nine in ten it ends by then. */
  p90: number;
  stationId: string | null;
}

const jobsIn = (j: SimJob): number => j.count ?? 1;

/** Dispatch order with fair share: at each priority below rush (rank 0), projects interleaved. */
export function dispatchOrder(jobs: readonly SimJob[], costMs: number): SimJob[] {
  const sorted = [...jobs].sort((a, b) => b.priority - a.priority || a.rank - b.rank || a.enqueuedAt - b.enqueuedAt);
  const out: SimJob[] = [];
  // Pushed one by one: a level of 100k+ spread into push() overflows the call stack.
  const add = (xs: readonly SimJob[]): void => {
    for (const x of xs) out.push(x);
  };
  let i = 0;
  while (i < sorted.length) {
    const head = sorted[i] as SimJob;
    let j = i;
    while (j < sorted.length && (sorted[j] as SimJob).priority === head.priority) j++;
    const level = sorted.slice(i, j);
    i = j;
    if (head.priority >= PRIORITY_VALUE.rush) {
      add(level);
      continue;
    }
    const ranked = level.filter((x) => x.rank !== 0);
    const plain = level.filter((x) => x.rank === 0);
    const byProject = new Map<string, SimJob[]>();
    for (const x of plain) {
      const q = byProject.get(x.project);
      if (q) q.push(x);
      else byProject.set(x.project, [x]);
    }
    add(ranked);
    if (byProject.size < 2) add(plain);
    else
      add(
        fairOrder(
          [...byProject].map(([project, q]) => ({ project, jobs: q })),
          new Map(),
          {},
          costMs,
          jobsIn,
        ),
      );
  }
  return out;
}

function fits(job: SimJob, s: SimStation): boolean {
  return s.usableVramGb >= job.vramGb && job.tags.every((t) => s.tags.includes(t));
}

interface SimSlots {
  s: SimStation;
  free: number[];
  vari: number[];
  /** The pace uncertainty along each slot (ms, one sd): shared by its runs, so it adds linearly. */
  corr: number[];
  last: string | null;
  /** When the next job may be sent there (prefetch): the start of the last one sent. */
  open: number;
  /** A RunPod endpoint's workers (no model load to track; each run pays RunPod's delay and costs money). */
  cloud?: SimEndpoint;
}

/** One job's run on a GPU model: its mean (with retries), independent sd, and shared pace sd. */
interface Run {
  mean: number;
  sigma: number;
  pace: number;
  coldMs: number | null;
}

/** A job's run on a GPU model (a LAN workstation's own dispatch gap after it, when given). */
function runOf(job: SimJob, gpuName: string, input: SimInput, st?: SimStation): Run {
  const f = input.figure(job.templateId, gpuName, job.bucket);
  const sd = f?.sdMs ?? input.fallbackMs / 2;
  return {
    mean: Math.max(1, (f?.meanMs ?? input.fallbackMs) + (f?.retryMs ?? 0) + (st?.gapMs ?? 0)),
    sigma: Math.hypot(sd, f?.retrySdMs ?? 0, st?.gapSdMs ?? 0),
    pace: f?.paceSdMs ?? 0,
    coldMs: f?.coldMs ?? null,
  };
}

/** The play's state: the LAN slots, the cloud's workers, the budget, and the p90's parts. */
interface Play {
  input: SimInput;
  stations: SimSlots[];
  cloud: SimSlots[];
  budget: CloudBudget | null;
}

/**
 * The p90 of an end: the independent spread `v`, the shared pace `corr`, and a workstation going
 * away before it. With k workstations, one lost at a uniform time over the h left pushes the rest
 * back by what it had left over the k − 1 others: (h − τ)/(k − 1); at the observed rate λ per
 * GPU-hour some one is lost with chance p = 1 − e^(−λkh), adding p·E[d²] − (p·E[d])² to the variance.
 */
function p90Of(play: Play, end: number, v: number, corr: number): number {
  const lambda = play.input.lossPerGpuHour ?? 0;
  let loss = 0;
  const k = play.stations.length;
  if (lambda > 0 && k > 0) {
    const h = Math.max(0, end - play.input.now);
    const p = 1 - Math.exp((-lambda * k * h) / 3_600_000);
    const d = h / Math.max(1, k - 1);
    loss = Math.max(0, (p * d * d) / 3 - (p * d * p * d) / 4);
  }
  return end + Z90 * Math.sqrt(v + corr * corr + loss);
}

/** One slot a bucket can use: free from `free`, its first job paying `cold` more, each run `mean`. */
interface Lane {
  st: SimSlots;
  k: number;
  free: number;
  cold: number;
  mean: number;
  sigma: number;
  pace: number;
  /** At most this many of the bucket (a cloud worker under the day's budget). */
  limit: number;
  /** What each run costs (cloud lanes). */
  costUsd: number;
}

/** Jobs of a bucket started on a lane by time t (the first at `free`, then every `mean` after the cold one). */
function startsBy(l: Lane, t: number): number {
  if (t < l.free) return 0;
  return Math.min(l.limit, 1 + Math.max(0, Math.floor((t - l.free - l.cold) / l.mean)));
}

/** Each lane's share of n jobs: the n earliest starts, found by bisection on the time the last one starts; null when they cannot all start. */
function shareOut(lanes: readonly Lane[], n: number): number[] | null {
  const count = (t: number): number => lanes.reduce((a, l) => a + startsBy(l, t), 0);
  let lo = Math.min(...lanes.map((l) => l.free));
  let hi = Math.max(...lanes.map((l) => l.free + l.cold)) + n * Math.max(...lanes.map((l) => l.mean));
  if (count(hi) < n) return null;
  while (hi - lo > 0.5) {
    const mid = (lo + hi) / 2;
    if (count(mid) >= n) hi = mid;
    else lo = mid;
  }
  const share = lanes.map((l) => startsBy(l, hi));
  // Starts tied at the last instant can overshoot n: the latest starters give theirs back.
  let extra = share.reduce((a, b) => a + b, 0) - n;
  const lastStart = (i: number): number => {
    const l = lanes[i] as Lane;
    const m = share[i] as number;
    return m <= 1 ? l.free : l.free + l.cold + (m - 1) * l.mean;
  };
  while (extra > 0) {
    // Among starts tied at the latest, a single goes to the slot listed first: the last listed gives back.
    let worst = -1;
    for (let i = 0; i < lanes.length; i++)
      if ((share[i] as number) > 0 && (worst < 0 || lastStart(i) >= lastStart(worst))) worst = i;
    share[worst] = (share[worst] as number) - 1;
    extra--;
  }
  return share;
}

/**
 * A bucket of n like jobs, each to the slot where it starts first (as singles are placed): the n
 * earliest starts over the lanes — the LAN's, and the cloud's workers from when the burst policy
 * allows, as many as the day's budget pays for. The bucket's end is its last job's; null when no
 * slot fits.
 */
function placeBucket(job: SimJob, play: Play, readyAt: number, readyVar: number): SimEnd | null {
  const { input } = play;
  const n = jobsIn(job);
  const lanes: Lane[] = [];
  for (const st of play.stations) {
    if (!fits(job, st.s)) continue;
    const r = runOf(job, st.s.gpuName, input, st.s);
    const cold =
      job.checkpoint !== null && st.last !== job.checkpoint && r.coldMs != null ? Math.max(0, r.coldMs - r.mean) : 0;
    // The model load is paid once per workstation: on the slot that frees first.
    let first = 0;
    for (let k = 1; k < st.free.length; k++) if ((st.free[k] as number) < (st.free[first] as number)) first = k;
    for (let k = 0; k < st.free.length; k++)
      lanes.push({
        st,
        k,
        free: Math.max(st.free[k] as number, readyAt),
        cold: k === first ? cold : 0,
        mean: r.mean,
        sigma: r.sigma,
        pace: r.pace,
        limit: Number.POSITIVE_INFINITY,
        costUsd: 0,
      });
  }
  const lan = lanes.length;
  const budget = play.budget;
  if (budget && play.input.burst) {
    const lanStart = lan > 0 ? Math.min(...lanes.map((l) => l.free)) : Number.POSITIVE_INFINITY;
    const from = burstEligibleAt(job, readyAt, lanStart, play.input.burst.afterMs);
    for (const st of play.cloud) {
      const ep = st.cloud as SimEndpoint;
      if (!endpointFitsJob(ep, job)) continue;
      const r = runOf(job, ep.gpuName ?? '', input);
      const run = cloudRun(ep, r.mean);
      for (let k = 0; k < st.free.length; k++) {
        const free = budget.openFrom(Math.max(st.free[k] as number, from));
        if (free === null) continue;
        lanes.push({
          st,
          k,
          free,
          cold: 0,
          mean: run.holdMs,
          sigma: r.sigma,
          pace: r.pace,
          limit: Number.POSITIVE_INFINITY,
          costUsd: run.costUsd,
        });
      }
    }
  }
  if (lanes.length === 0) return null;
  let share = shareOut(lanes, n);
  if (share && lanes.length > lan) {
    // The cloud takes only what the day's budget pays for (the engine sends while the spend is under it: the last may pass it).
    const cloudLanes = lanes.slice(lan);
    const cost = cloudLanes.reduce((a, l, i) => a + (share?.[lan + i] as number) * l.costUsd, 0);
    const left = budget?.leftOn(Math.min(...cloudLanes.map((l) => l.free))) ?? 0;
    if (cost > left) {
      const each = Math.max(...cloudLanes.map((l) => l.costUsd));
      let cap = each > 0 ? Math.ceil(left / each) : Number.POSITIVE_INFINITY;
      for (const [i, l] of cloudLanes.entries()) {
        const want = share[lan + i] as number;
        l.limit = Math.min(want, cap);
        cap -= l.limit;
      }
      share = shareOut(lanes, n);
      // The day's budget runs out with the last run it pays for.
      const out = Math.max(...cloudLanes.map((l) => (l.limit > 0 ? l.free + (l.limit - 1) * l.mean : l.free)));
      budget?.runsOut(out);
    }
  }
  if (!share) {
    // Capped cloud lanes and no LAN slot fits: the rest wait for tomorrow's budget, beyond this play.
    return null;
  }
  let p50 = Number.NEGATIVE_INFINITY;
  let p90 = Number.NEGATIVE_INFINITY;
  let where: string | null = null;
  for (const [i, l] of lanes.entries()) {
    const m = share[i] as number;
    if (m === 0) continue;
    const end = l.free + l.cold + m * l.mean;
    const v = Math.max(l.st.vari[l.k] as number, readyVar) + m * l.sigma * l.sigma;
    const corr = (l.st.corr[l.k] as number) + m * l.pace;
    l.st.free[l.k] = end;
    l.st.vari[l.k] = v;
    l.st.corr[l.k] = corr;
    if (l.costUsd > 0) budget?.spend(l.free, m, m * l.costUsd);
    if (job.checkpoint !== null && !l.st.cloud) l.st.last = job.checkpoint;
    l.st.open = Math.max(l.st.open, l.free + l.cold + (m - 1) * l.mean);
    if (end > p50) {
      p50 = end;
      where = l.st.s.id;
    }
    p90 = Math.max(p90, p90Of(play, end, v, corr));
  }
  return { p50, p90, stationId: where };
}

/**
 * A single job to a cloud worker when the burst policy would send it there before the LAN starts it:
 * it has waited burst_after_s (or is rush with no LAN slot free), a worker of an endpoint that fits
 * is free, and the day's budget is not spent. Null: the LAN takes it (or nothing does).
 */
function placeOnCloud(job: SimJob, play: Play, readyAt: number, readyVar: number, lanStart: number): SimEnd | null {
  const burst = play.input.burst;
  if (!burst || !play.budget) return null;
  const from = burstEligibleAt(job, readyAt, lanStart, burst.afterMs);
  let best: { st: SimSlots; k: number; start: number } | null = null;
  for (const st of play.cloud) {
    if (!endpointFitsJob(st.cloud as SimEndpoint, job)) continue;
    for (let k = 0; k < st.free.length; k++) {
      const start = Math.max(st.free[k] as number, from);
      if (best === null || start < best.start) best = { st, k, start };
    }
  }
  // LAN workstations are preferred: the LAN pass runs first. With today's budget spent, the next day's.
  const open = best === null || best.start >= lanStart ? null : play.budget.openFrom(best.start);
  if (best === null || open === null || open >= lanStart) return null;
  best.start = open;
  const { st, k, start } = best;
  const ep = st.cloud as SimEndpoint;
  const r = runOf(job, ep.gpuName ?? '', play.input);
  const run = cloudRun(ep, r.mean);
  play.budget.spend(start, 1, run.costUsd);
  const end = start + run.holdMs;
  const v = Math.max(st.vari[k] as number, readyVar) + r.sigma * r.sigma;
  const corr = (st.corr[k] as number) + r.pace;
  st.free[k] = end;
  st.vari[k] = v;
  st.corr[k] = corr;
  return { p50: end, p90: p90Of(play, end, v, corr), stationId: ep.id };
}

/** Each job's expected end; a job no station can take is left out (it waits for hardware). */
export function simulate(input: SimInput): Map<string, SimEnd> {
  return play(input).ends;
}

/** The play, with what it sent to the cloud (the forecast's words: "incl. up to 4 RunPod workers"). */
export function play(input: SimInput): { ends: Map<string, SimEnd>; cloud: CloudUse | null } {
  const { now } = input;
  const stations: SimSlots[] = input.stations.map((s) => ({
    s,
    free: s.freeAt.map((t) => Math.max(now, t)),
    vari: s.freeAt.map((_, i) => s.freeVar?.[i] ?? 0),
    corr: s.freeAt.map(() => 0),
    last: s.lastCheckpoint,
    open: Math.max(now, s.placeOpensAt ?? now),
  }));
  const cloud: SimSlots[] = (input.burst?.endpoints ?? []).map((ep) => ({
    s: {
      id: ep.id,
      gpuName: ep.gpuName ?? '',
      usableVramGb: ep.vramGb ?? Infinity,
      tags: ep.tags,
      freeAt: ep.freeAt,
      lastCheckpoint: null,
    },
    free: ep.freeAt.map((t) => Math.max(now, t)),
    vari: ep.freeAt.map(() => 0),
    corr: ep.freeAt.map(() => 0),
    last: null,
    open: now,
    cloud: ep,
  }));
  const budget = input.burst && cloud.length > 0 ? new CloudBudget(input.burst, now) : null;
  const state: Play = { input, stations, cloud, budget };
  const ends = new Map<string, SimEnd>();
  const jobs = dispatchOrder(input.jobs, input.fallbackMs);
  const waiting = new Set(jobs.map((x) => x.id));
  // A job waiting for another placed later in the order is placed after it (one deferral round per pass).
  let pending = jobs;
  for (let pass = 0; pass < 4 && pending.length > 0; pass++) {
    const deferred: SimJob[] = [];
    for (const job of pending) {
      let readyAt = now;
      let readyVar = 0;
      if (job.waitsOnOthers && pass === 0) {
        deferred.push(job);
        continue;
      }
      if (job.dependsOn !== null) {
        const dep = ends.get(job.dependsOn);
        if (!dep) {
          if (waiting.has(job.dependsOn) && pass < 3) {
            deferred.push(job);
            continue;
          }
        } else {
          readyAt = dep.p50;
          readyVar = ((dep.p90 - dep.p50) / Z90) ** 2;
        }
      }
      if (jobsIn(job) > 1) {
        const end = placeBucket(job, state, readyAt, readyVar);
        if (end) ends.set(job.id, end);
        continue;
      }
      // Without prefetch a job is sent when a slot frees: the slot that frees first takes it. With
      // it, a job is sent the moment a place opens (scheduler/dispatch-choice.ts): to the place that
      // opens first, then the earliest start — at an episode's end the last jobs wait behind a slow
      // GPU's running prompt while a fast one goes idle, as they do on the farm.
      let best: { st: (typeof stations)[number]; slot: number; start: number; sent: number } | null = null;
      for (const st of stations) {
        if (!fits(job, st.s)) continue;
        const sent = input.prefetch ? Math.max(st.open, readyAt) : readyAt;
        for (let k = 0; k < st.free.length; k++) {
          const start = Math.max(st.free[k] as number, sent);
          if (best === null || sent < best.sent || (sent === best.sent && start < best.start))
            best = { st, slot: k, start, sent };
        }
      }
      const onCloud = placeOnCloud(job, state, readyAt, readyVar, best?.start ?? Number.POSITIVE_INFINITY);
      if (onCloud) {
        ends.set(job.id, onCloud);
        continue;
      }
      if (best === null) continue;
      const { st, slot, start } = best;
      const r = runOf(job, st.s.gpuName, input, st.s);
      const cold =
        job.checkpoint !== null && st.last !== job.checkpoint && r.coldMs != null ? Math.max(0, r.coldMs - r.mean) : 0;
      const end = start + r.mean + cold;
      const v = Math.max(st.vari[slot] as number, readyVar) + r.sigma * r.sigma;
      const corr = (st.corr[slot] as number) + r.pace;
      st.free[slot] = end;
      st.vari[slot] = v;
      st.corr[slot] = corr;
      st.open = start;
      if (job.checkpoint !== null) st.last = job.checkpoint;
      ends.set(job.id, { p50: end, p90: p90Of(state, end, v, corr), stationId: st.s.id });
    }
    pending = deferred;
  }
  return { ends, cloud: budget?.use ?? null };
}
