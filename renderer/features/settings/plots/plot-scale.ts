/**
 * The arithmetic of the Templates view's plots (plain SVG, no charting library): linear scales,
 * "nice" ticks for GB, for run lengths and for wall-clock times (on local-time boundaries), a
 * colour per GPU model shared by both plots, and a steady jitter for strip points. Pure.
 */

/** Maps [d0, d1] onto [r0, r1]. */
export function linear(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const span = d1 - d0 || 1;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

/** Ticks at 1, 2 or 5 × 10^k from 0 up to at least `max`, at most about `count` of them. */
export function niceTicks(max: number, count: number): number[] {
  const top = max > 0 ? max : 1;
  const raw = top / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag) as number;
  // Each tick is k × step written at the step's own precision: 3 × 0.2 is 0.6, not 0.6000000000000001.
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  const ticks: number[] = [];
  for (let k = 0; k * step < top + step - 1e-9; k++) ticks.push(Number((k * step).toFixed(decimals)));
  return ticks;
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const DURATION_STEPS = [
  SECOND,
  2 * SECOND,
  5 * SECOND,
  10 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  6 * HOUR,
];

/** Run-length ticks from 0 to at least `maxMs`, on round seconds, minutes or hours. */
export function durationTicks(maxMs: number, count: number): number[] {
  const top = Math.max(maxMs, SECOND);
  const step = DURATION_STEPS.find((s) => top / s <= count) ?? Math.ceil(top / count / HOUR) * HOUR;
  const ticks: number[] = [];
  for (let v = 0; v < top + step; v += step) ticks.push(v);
  return ticks;
}

/** A tick's words: "45 s", "1 m 30 s", "2 m", "1 h 30 m". */
export function durationTick(ms: number): string {
  if (ms < MINUTE) return `${Math.round(ms / SECOND)} s`;
  if (ms < HOUR) {
    const m = Math.floor(ms / MINUTE);
    const s = Math.round((ms % MINUTE) / SECOND);
    return s ? `${m} m ${s} s` : `${m} m`;
  }
  const h = Math.floor(ms / HOUR);
  const m = Math.round((ms % HOUR) / MINUTE);
  return m ? `${h} h ${m} m` : `${h} h`;
}

const TIME_STEPS = [
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  7 * DAY,
  14 * DAY,
  30 * DAY,
];

/** Local midnight of the day `t` falls in. */
function dayStart(t: number): number {
  const d = new Date(t);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/**
 * Wall-clock ticks within [from, to], at most `count`, on local boundaries (whole hours, midnights),
 * with their words: "14:00", the day added where it changes ("Dec 4 00:00"), or only the day for
 * steps of a day or more.
 */
export function timeTicks(from: number, to: number, count: number): { at: number; words: string }[] {
  const span = Math.max(to - from, MINUTE);
  const step = TIME_STEPS.find((s) => span / s <= count) ?? Math.ceil(span / count / DAY) * DAY;
  const out: { at: number; words: string }[] = [];
  const day = (t: number) => new Date(t).toLocaleDateString([], { month: 'short', day: 'numeric' });
  const hm = (t: number) =>
    new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const manyDays = dayStart(from) !== dayStart(to);
  let t = dayStart(from);
  // Daylight-saving days are not 24 h long: each tick is placed from its own day's midnight.
  while (t < from) t = next(t, step);
  let lastDay = -1;
  for (; t <= to && out.length < count + 2; t = next(t, step)) {
    const d = dayStart(t);
    const words = step >= DAY ? day(t) : manyDays && d !== lastDay ? `${day(t)} ${hm(t)}` : hm(t);
    out.push({ at: t, words });
    lastDay = d;
  }
  return out;
}

function next(t: number, step: number): number {
  if (step < DAY) return t + step;
  const d = new Date(t);
  d.setDate(d.getDate() + Math.round(step / DAY));
  return d.getTime();
}

/** A colour per GPU model, the same in both plots (in the order of the sorted names). */
const PALETTE = ['#5b9cff', '#3ecf8e', '#f5a524', '#c084fc', '#38bdf8', '#f472b6', '#a3e635', '#fb923c'];

export function gpuColours(gpus: readonly string[]): Map<string, string> {
  return new Map([...new Set(gpus)].sort().map((g, i) => [g, PALETTE[i % PALETTE.length] as string]));
}

/** A steady spread in [0, 1) for the i-th point of a strip (no random: the same plot each time). */
export function jitter(i: number): number {
  return (i * 0.618_033_988_75) % 1;
}

/** "RTX 4090"; a long name cut to `max` characters with an ellipsis (the full one goes in a title). */
export function gpuLabel(short: string, max: number): string {
  return short.length <= max ? short : `${short.slice(0, max - 1).trimEnd()}…`;
}

export const count = (n: number): string => n.toLocaleString('en-US');
