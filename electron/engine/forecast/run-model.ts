/**
 * The run-time model: per template version × GPU model × parameter bucket (run-buckets.ts), the
 * median and p90 of completed runs, counted from the prompt's real start on its GPU (as the
 * workstation's own run lengths are, pools/comfy-lan/run-lengths.ts), with cold starts — the first
 * prompt of a checkpoint on a workstation, which pays the model load — counted apart as their own
 * median. A key with too few runs borrows, in this order: the same template on the same GPU model
 * in any bucket; the template's warm runs on the GPU model that ran it most, scaled by how much
 * longer this model takes (their speeds over templates both ran, else the two models' cold runs of
 * this template); this model's own cold runs of it; then nothing (the caller says "no figure").
 * Early in an episode a slow model has often run only its first, cold job: going by another
 * model's runs at the average pace made it as fast as the fastest (24 % early at 10 % done). Pure.
 */

export interface RunSample {
  templateId: number;
  gpuName: string;
  bucket: string;
  /** Real start to end. */
  ms: number;
  /** The first prompt of its checkpoint on its workstation: it loaded the model. */
  cold: boolean;
  /** Where it ran (a workstation or a RunPod endpoint), and how long it waited there before its real start. */
  instanceId?: string;
  delayMs?: number;
}

/** An attempt that ended without the job's result and was run again: its time is lost to a retry. */
export interface WastedRun {
  templateId: number;
  /** Sent to its end. */
  ms: number;
  /** An error or a timeout ('retry'), or its workstation went away ('lost'). */
  why: 'retry' | 'lost';
}

/** After a completed run, how long its GPU stood idle while work was waiting (0 when the next prompt was waiting there). */
export interface DispatchGap {
  instanceId: string;
  ms: number;
}

/** What a template's retries add to each of its jobs, at the farm's observed rate. */
export interface RetryFigure {
  /** Share of its attempts that were run again. */
  rate: number;
  /** Expected time lost per job (retries × their mean time), and its standard deviation. */
  meanMs: number;
  sdMs: number;
}

/** What the model says about one key. */
export interface RunFigure {
  p50Ms: number;
  p90Ms: number;
  /**
   * The mean and standard deviation of warm runs: what a queue of many runs adds up to (a sum goes
   * by the mean, not the median, and its spread by the deviation: the forecast, simulate.ts).
   */
  meanMs: number;
  sdMs: number;
  /**
   * How far the mean itself may be off (ms, one standard deviation): its standard error (wider with
   * few runs), the drift of the pace over time (the spread of the means of successive batches beyond
   * what chance gives) and, for a borrowed figure, the spread of the GPU models' pace ratio. Unlike
   * a run's own spread it does not average out over a queue: every run of the key shares it.
   */
  paceSdMs: number;
  /** Warm runs the figure is of (0 when borrowed from cold runs alone). */
  runs: number;
  /** The median cold run, when cold runs of this key (or its borrowed key) were seen. */
  coldMs: number | null;
  coldRuns: number;
  /** Where it came from: exactly this key, the template on this GPU in any bucket, or scaled from other GPU models. */
  source: 'exact' | 'gpu' | 'scaled';
}

/** Fewer warm runs than this in a bucket and the key borrows from the wider one. */
export const MIN_RUNS = 3;

/** The q-quantile (0–1) of ascending values, by linear interpolation; null for none. */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  const a = sorted[lo] as number;
  return a + ((sorted[hi] as number) - a) * (at - lo);
}

interface Pile {
  warm: number[];
  cold: number[];
}

function pileOf(map: Map<string, Pile>, key: string): Pile {
  let p = map.get(key);
  if (!p) map.set(key, (p = { warm: [], cold: [] }));
  return p;
}

const k = (...parts: (string | number)[]): string => parts.join('\u001f');

function figureOf(p: Pile, source: RunFigure['source'], scale = 1): RunFigure | null {
  const warm = [...p.warm].sort((a, b) => a - b);
  const cold = [...p.cold].sort((a, b) => a - b);
  const base = warm.length > 0 ? warm : cold;
  const p50 = quantile(base, 0.5);
  const p90 = quantile(base, 0.9);
  if (p50 === null || p90 === null) return null;
  const coldMid = quantile(cold, 0.5);
  const mean = base.reduce((a, b) => a + b, 0) / base.length;
  const sd = Math.sqrt(base.reduce((a, b) => a + (b - mean) ** 2, 0) / base.length);
  // In time order (the samples come as they reached their GPU): p.warm, not the sorted copy.
  const pace = paceSd(warm.length > 0 ? p.warm : p.cold, mean, sd);
  return {
    p50Ms: Math.round(p50 * scale),
    p90Ms: Math.round(p90 * scale),
    meanMs: Math.round(mean * scale),
    sdMs: Math.round(sd * scale),
    paceSdMs: Math.round(pace * scale),
    runs: warm.length,
    coldMs: coldMid === null ? null : Math.round(coldMid * scale),
    coldRuns: cold.length,
    source,
  };
}

/**
 * How far a mean of n runs may be off: its standard error, widened for few runs (about Student's t
 * at the 90th percentile: ×1.5 at 3 runs, ×1.1 at 10), and the drift of the pace — successive
 * batches' means spread more than chance gives when the farm's pace moves (a busy host, thermal
 * throttling, other work on the GPU). `inOrder`: the runs in time order.
 */
export function paceSd(inOrder: readonly number[], mean: number, sd: number): number {
  const n = inOrder.length;
  if (n === 0) return 0;
  const se = n > 1 ? (sd / Math.sqrt(n)) * (1 + 1 / (n - 1)) : sd;
  const size = Math.max(3, Math.floor(n / 4));
  const batches = Math.floor(n / size);
  if (batches < 3) return se;
  const means: number[] = [];
  for (let b = 0; b < batches; b++) {
    let sum = 0;
    for (let i = b * size; i < (b + 1) * size; i++) sum += inOrder[i] as number;
    means.push(sum / size);
  }
  const between = means.reduce((a, m) => a + (m - mean) ** 2, 0) / (batches - 1);
  const drift = Math.max(0, between - (sd * sd) / size);
  return Math.sqrt(se * se + drift);
}

/** The relative spread of a pace ratio known from one pair of cold runs (no other template ran on both models). */
const COLD_RATIO_SPREAD = 0.25;

export class RunModel {
  private readonly exact = new Map<string, Pile>();
  private readonly onGpu = new Map<string, Pile>();
  /** Per template, its pile on each GPU model. */
  private readonly byTemplate = new Map<number, Map<string, Pile>>();
  private readonly speed = new Map<string, number>();
  /** Relative standard deviation of each GPU model's speed ratio over the templates (its pace ratio's uncertainty). */
  private readonly speedSpread = new Map<string, number>();
  private readonly memo = new Map<string, RunFigure | null>();
  private readonly delays = new Map<string, number[]>();
  private readonly retries = new Map<number, { done: number; wasted: number[] }>();
  private lost = 0;
  private busyMs = 0;
  readonly samples: number;

  private readonly gaps = new Map<string, number[]>();

  constructor(samples: readonly RunSample[], wasted: readonly WastedRun[] = [], gaps: readonly DispatchGap[] = []) {
    this.samples = samples.length;
    for (const g of gaps) {
      const on = this.gaps.get(g.instanceId);
      if (on) on.push(g.ms);
      else this.gaps.set(g.instanceId, [g.ms]);
    }
    for (const w of wasted) {
      this.tally(w.templateId).wasted.push(w.ms);
      this.busyMs += w.ms;
      if (w.why === 'lost') this.lost++;
    }
    for (const s of samples) {
      if (!Number.isFinite(s.ms) || s.ms < 0) continue;
      this.tally(s.templateId).done++;
      this.busyMs += s.ms;
      if (s.instanceId !== undefined && s.delayMs !== undefined) {
        const d = this.delays.get(s.instanceId);
        if (d) d.push(s.delayMs);
        else this.delays.set(s.instanceId, [s.delayMs]);
      }
      for (const pile of [
        pileOf(this.exact, k(s.templateId, s.gpuName, s.bucket)),
        pileOf(this.onGpu, k(s.templateId, s.gpuName)),
      ])
        (s.cold ? pile.cold : pile.warm).push(s.ms);
    }
    // A GPU model's speed: the median over templates of (its median / the template's median on all
    // models), from warm runs. 1 = average; 2 = takes twice as long.
    const perTemplate = new Map<number, Map<string, number>>();
    for (const [key, pile] of this.onGpu) {
      const [t, gpu] = key.split('\u001f') as [string, string];
      const piles = this.byTemplate.get(Number(t)) ?? new Map<string, Pile>();
      piles.set(gpu, pile);
      this.byTemplate.set(Number(t), piles);
      const mid = quantile(
        [...pile.warm].sort((a, b) => a - b),
        0.5,
      );
      if (mid === null) continue;
      const m = perTemplate.get(Number(t)) ?? new Map<string, number>();
      m.set(gpu, mid);
      perTemplate.set(Number(t), m);
    }
    const ratios = new Map<string, number[]>();
    for (const byGpu of perTemplate.values()) {
      if (byGpu.size < 2) continue;
      const mean = [...byGpu.values()].reduce((a, b) => a + b, 0) / byGpu.size;
      for (const [gpu, mid] of byGpu) ratios.set(gpu, [...(ratios.get(gpu) ?? []), mid / mean]); // a few GPU models
    }
    for (const [gpu, r] of ratios) {
      const mid =
        quantile(
          [...r].sort((a, b) => a - b),
          0.5,
        ) ?? 1;
      this.speed.set(gpu, mid);
      if (r.length >= 2 && mid > 0) {
        const m = r.reduce((a, b) => a + b, 0) / r.length;
        this.speedSpread.set(gpu, Math.sqrt(r.reduce((a, b) => a + (b - m) ** 2, 0) / (r.length - 1)) / mid);
      }
    }
  }

  private tally(templateId: number): { done: number; wasted: number[] } {
    let t = this.retries.get(templateId);
    if (!t) this.retries.set(templateId, (t = { done: 0, wasted: [] }));
    return t;
  }

  /**
   * What the template's retries add to each job at the farm's observed rate: a job runs again with
   * probability `rate` each time, so 1/(1 − rate) − 1 wasted attempts on average, each as long as
   * its wasted attempts were. Zero when it never failed here.
   */
  retryOf(templateId: number): RetryFigure {
    const t = this.retries.get(templateId);
    if (!t || t.wasted.length === 0) return { rate: 0, meanMs: 0, sdMs: 0 };
    const rate = Math.min(0.9, t.wasted.length / (t.wasted.length + t.done));
    const each = t.wasted.reduce((a, b) => a + b, 0) / t.wasted.length;
    const tries = rate / (1 - rate);
    // The count of retries before a success is geometric: variance rate / (1 − rate)².
    return { rate, meanMs: tries * each, sdMs: (Math.sqrt(rate) / (1 - rate)) * each };
  }

  /** How often a workstation went away under a running prompt: lost attempts per hour of GPU time in the window. */
  lossPerGpuHour(): number {
    return this.busyMs > 0 ? this.lost / (this.busyMs / 3_600_000) : 0;
  }

  /**
   * The mean and sd of a workstation's dispatch gap after a run (its GPU idle while work waited);
   * with none measured there, the farm's over all workstations; null when none anywhere.
   */
  gapOf(instanceId: string): { meanMs: number; sdMs: number } | null {
    const xs = this.gaps.get(instanceId) ?? [...this.gaps.values()].flat();
    if (xs.length === 0) return null;
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    return { meanMs: mean, sdMs: Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length) };
  }

  /** The median wait between sending a prompt to this instance and its real start (RunPod's queue and cold start); null when unmeasured. */
  delayOf(instanceId: string): number | null {
    const d = this.delays.get(instanceId);
    return d
      ? quantile(
          [...d].sort((a, b) => a - b),
          0.5,
        )
      : null;
  }

  /** The figure for a job of this template version, bucket and GPU model; null when nothing to go by. */
  figure(templateId: number, gpuName: string, bucket: string): RunFigure | null {
    // Asked once per waiting job by the forecast (100k of them): each key's figure is worked out once.
    const key = k(templateId, gpuName, bucket);
    if (this.memo.has(key)) return this.memo.get(key) ?? null;
    const f = this.work(templateId, gpuName, bucket);
    this.memo.set(key, f);
    return f;
  }

  private work(templateId: number, gpuName: string, bucket: string): RunFigure | null {
    const exact = this.exact.get(k(templateId, gpuName, bucket));
    if (exact && exact.warm.length >= MIN_RUNS) return figureOf(exact, 'exact');
    const gpu = this.onGpu.get(k(templateId, gpuName));
    if (gpu && gpu.warm.length > 0) return figureOf(gpu, 'gpu');
    // Borrowed: the template's warm runs on the GPU model that ran it most, at this model's pace.
    const ref = this.reference(templateId, gpuName);
    if (!ref) return gpu ? figureOf(gpu, 'gpu') : null;
    const scale = this.paceRatio(gpuName, ref.gpu, gpu, ref.pile);
    // No pace to scale by, but this model's own cold runs of the template: they are its pace (a
    // model load at most too long), where another model's runs may be several times off.
    if (scale === null && gpu) return figureOf(gpu, 'gpu');
    const f = figureOf(ref.pile, 'scaled', scale ?? 1);
    if (f) {
      // The pace ratio is itself uncertain: by the spread of the two models' speeds over templates, else a cold-run pair's.
      const a = this.speedSpread.get(gpuName);
      const b = this.speedSpread.get(ref.gpu);
      const rel = a !== undefined && b !== undefined ? Math.hypot(a, b) : COLD_RATIO_SPREAD;
      f.paceSdMs = Math.round(Math.hypot(f.paceSdMs, f.meanMs * rel));
    }
    if (f && gpu && gpu.cold.length > 0) {
      // The model load as this model paid it, not scaled from another's.
      f.coldMs = Math.round(
        quantile(
          [...gpu.cold].sort((a, b) => a - b),
          0.5,
        ) as number,
      );
      f.coldRuns = gpu.cold.length;
    }
    return f;
  }

  /** The other GPU model with the most warm runs of the template (ties: by name, so the figure is stable). */
  private reference(templateId: number, gpuName: string): { gpu: string; pile: Pile } | null {
    let best: { gpu: string; pile: Pile } | null = null;
    for (const [gpu, pile] of this.byTemplate.get(templateId) ?? []) {
      if (gpu === gpuName || pile.warm.length === 0) continue;
      if (
        !best ||
        pile.warm.length > best.pile.warm.length ||
        (pile.warm.length === best.pile.warm.length && gpu < best.gpu)
      )
        best = { gpu, pile };
    }
    return best;
  }

  /**
   * How much longer `gpuName` takes than `ref`: by their speeds over the templates both ran when
   * known; else, when both have cold runs of this template, by those (like for like: each paid a
   * model load); else unknown (null).
   */
  private paceRatio(gpuName: string, ref: string, own: Pile | undefined, refPile: Pile): number | null {
    const a = this.speed.get(gpuName);
    const b = this.speed.get(ref);
    if (a !== undefined && b !== undefined && b > 0) return a / b;
    const ownCold = quantile(
      [...(own?.cold ?? [])].sort((x, y) => x - y),
      0.5,
    );
    const refCold = quantile(
      [...refPile.cold].sort((x, y) => x - y),
      0.5,
    );
    return ownCold !== null && refCold !== null && refCold > 0 ? ownCold / refCold : null;
  }

  /** How long this model takes relative to the farm's average (1 when unknown). */
  speedOf(gpuName: string): number {
    return this.speed.get(gpuName) ?? 1;
  }
}
