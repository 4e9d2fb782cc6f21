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
 */
import { fairOrder } from '../scheduler/fair-share.js';
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
  lastCheckpoint: string | null;
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
}

export interface SimInput {
  now: number;
  stations: readonly SimStation[];
  jobs: readonly SimJob[];
  figure(templateId: number, gpuName: string, bucket: string): SimFigure | null;
  /** What a job with no figure on any GPU is taken to run (the farm's median run, or a minute). */
  fallbackMs: number;
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
  last: string | null;
}

/** One slot a bucket can use: free from `free`, its first job paying `cold` more, each run `mean`. */
interface Lane {
  st: SimSlots;
  k: number;
  free: number;
  cold: number;
  mean: number;
  sigma: number;
}

/** Jobs of a bucket started on a lane by time t (the first at `free`, then every `mean` after the cold one). */
function startsBy(l: Lane, t: number): number {
  if (t < l.free) return 0;
  return 1 + Math.max(0, Math.floor((t - l.free - l.cold) / l.mean));
}

/**
 * A bucket of n like jobs, each to the slot where it starts first (as singles are placed): the n
 * earliest starts over the lanes. Bisection finds the time by which n have started; each lane then
 * runs its share. The bucket's end is its last job's; null when no slot fits.
 */
function placeBucket(
  job: SimJob,
  stations: readonly SimSlots[],
  readyAt: number,
  readyVar: number,
  input: SimInput,
): SimEnd | null {
  const n = jobsIn(job);
  const lanes: Lane[] = [];
  for (const st of stations) {
    if (!fits(job, st.s)) continue;
    const f = input.figure(job.templateId, st.s.gpuName, job.bucket);
    const mean = Math.max(1, f?.meanMs ?? input.fallbackMs);
    const cold =
      job.checkpoint !== null && st.last !== job.checkpoint && f?.coldMs != null ? Math.max(0, f.coldMs - mean) : 0;
    // The model load is paid once per workstation: on the slot that frees first.
    let first = 0;
    for (let k = 1; k < st.free.length; k++) if ((st.free[k] as number) < (st.free[first] as number)) first = k;
    for (let k = 0; k < st.free.length; k++)
      lanes.push({
        st,
        k,
        free: Math.max(st.free[k] as number, readyAt),
        cold: k === first ? cold : 0,
        mean,
        sigma: f?.sdMs ?? input.fallbackMs / 2,
      });
  }
  if (lanes.length === 0) return null;
  const count = (t: number): number => lanes.reduce((a, l) => a + startsBy(l, t), 0);
  let lo = Math.min(...lanes.map((l) => l.free));
  let hi = Math.max(...lanes.map((l) => l.free + l.cold)) + n * Math.max(...lanes.map((l) => l.mean));
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
  let p50 = Number.NEGATIVE_INFINITY;
  let p90 = Number.NEGATIVE_INFINITY;
  let where: string | null = null;
  for (const [i, l] of lanes.entries()) {
    const m = share[i] as number;
    if (m === 0) continue;
    const end = l.free + l.cold + m * l.mean;
    const v = Math.max(l.st.vari[l.k] as number, readyVar) + m * l.sigma * l.sigma;
    l.st.free[l.k] = end;
    l.st.vari[l.k] = v;
    if (job.checkpoint !== null) l.st.last = job.checkpoint;
    if (end > p50) {
      p50 = end;
      where = l.st.s.id;
    }
    p90 = Math.max(p90, end + Z90 * Math.sqrt(v));
  }
  return { p50, p90, stationId: where };
}

/** Each job's expected end; a job no station can take is left out (it waits for hardware). */
export function simulate(input: SimInput): Map<string, SimEnd> {
  const { now } = input;
  const stations: SimSlots[] = input.stations.map((s) => ({
    s,
    free: s.freeAt.map((t) => Math.max(now, t)),
    vari: s.freeAt.map((_, i) => s.freeVar?.[i] ?? 0),
    last: s.lastCheckpoint,
  }));
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
        const end = placeBucket(job, stations, readyAt, readyVar, input);
        if (end) ends.set(job.id, end);
        continue;
      }
      let best: { st: (typeof stations)[number]; slot: number; start: number } | null = null;
      for (const st of stations) {
        if (!fits(job, st.s)) continue;
        for (let k = 0; k < st.free.length; k++) {
          const start = Math.max(st.free[k] as number, readyAt);
          if (best === null || start < best.start) best = { st, slot: k, start };
        }
      }
      if (best === null) continue;
      const { st, slot, start } = best;
      const f = input.figure(job.templateId, st.s.gpuName, job.bucket);
      const mean = f?.meanMs ?? input.fallbackMs;
      const sigma = f?.sdMs ?? input.fallbackMs / 2;
      const cold =
        job.checkpoint !== null && st.last !== job.checkpoint && f?.coldMs != null ? Math.max(0, f.coldMs - mean) : 0;
      const end = start + mean + cold;
      const v = Math.max(st.vari[slot] as number, readyVar) + sigma * sigma;
      st.free[slot] = end;
      st.vari[slot] = v;
      if (job.checkpoint !== null) st.last = job.checkpoint;
      ends.set(job.id, { p50: end, p90: end + Z90 * Math.sqrt(v), stationId: st.s.id });
    }
    pending = deferred;
  }
  return ends;
}
