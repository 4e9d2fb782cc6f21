/** What a benchmark reports: one row per figure in the table, plus free-form details for the JSON. */
export interface Figure {
  figure: string;
  /** Human-readable target, e.g. "≤ 5 ms". */
  target: string;
  /** Human-readable measurement, e.g. "3.2 ms". */
  measured: string;
  /**
   * PASS / MISS, or INFO for figures without a target, or N/A when not measured, or UNDER LOAD for
   * a timing figure measured while other work loaded the machine (lib/baselines.ts: not judged on
   * its absolute value; its ratio to a same-run baseline is printed instead).
   */
  verdict: 'PASS' | 'MISS' | 'INFO' | 'N/A' | 'UNDER LOAD';
  /** Raw number behind `measured` (for medians across runs). */
  value?: number;
}

export interface BenchArgs {
  /** Named flags after the benchmark name: `--kills 20` → { kills: '20' }. */
  flags: Record<string, string>;
  /** Bench-wide scale 0..1 to shrink workloads for a quick run (`--quick`). */
  quick: boolean;
  log(message: string): void;
}

/** A numeric flag's default: one number, or the full run's and the --quick run's. */
export type FlagDefault = number | readonly [full: number, quick: number];

/** Numeric flags by name: `--name N` when given, else the default (the quick one under --quick). */
export function numberFlags<K extends string>(args: BenchArgs, defaults: Record<K, FlagDefault>): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const name of Object.keys(defaults) as K[]) {
    const d = defaults[name];
    const given = args.flags[name];
    out[name] = given !== undefined ? Number(given) : typeof d === 'number' ? d : args.quick ? d[1] : d[0];
  }
  return out;
}

export interface BenchResult {
  figures: Figure[];
  details: Record<string, unknown>;
}

export interface Benchmark {
  name: string;
  description: string;
  /** Not part of `npm run bench` without a name (long runs: chaos, soak). */
  onlyByName?: boolean;
  run(args: BenchArgs): Promise<BenchResult>;
}

export function le(figure: string, value: number, limit: number, unit: string, digits = 2): Figure {
  return {
    figure,
    target: `≤ ${limit} ${unit}`.trim(),
    measured: `${fmt(value, digits)} ${unit}`.trim(),
    verdict: value <= limit ? 'PASS' : 'MISS',
    value,
  };
}

export function ge(figure: string, value: number, limit: number, unit: string, digits = 2): Figure {
  return {
    figure,
    target: `≥ ${limit} ${unit}`.trim(),
    measured: `${fmt(value, digits)} ${unit}`.trim(),
    verdict: value >= limit ? 'PASS' : 'MISS',
    value,
  };
}

export function info(figure: string, measured: string, value?: number): Figure {
  return { figure, target: '—', measured, verdict: 'INFO', ...(value !== undefined ? { value } : {}) };
}

export function fmt(v: number, digits = 2): string {
  if (!Number.isFinite(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(digits);
}
