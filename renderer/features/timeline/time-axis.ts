/** Tick spacing for the timeline axis: the first "nice" step giving at most ~8 ticks. */
const STEPS = [
  10e3,
  30e3,
  60e3,
  2 * 60e3,
  5 * 60e3,
  10 * 60e3,
  15 * 60e3,
  30 * 60e3,
  3_600e3,
  2 * 3_600e3,
  3 * 3_600e3,
  6 * 3_600e3,
  12 * 3_600e3,
  24 * 3_600e3,
];

export function ticks(from: number, to: number, max = 8): number[] {
  const span = to - from;
  const step = STEPS.find((s) => span / s <= max) ?? STEPS[STEPS.length - 1] ?? 3_600e3;
  const out: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) out.push(t);
  return out;
}

export function tickLabel(t: number, span: number): string {
  const d = new Date(t);
  const hm = d.toLocaleTimeString([], {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    ...(span < 5 * 60e3 ? { second: '2-digit' } : {}),
  });
  return span > 20 * 3_600e3 && d.getHours() === 0 && d.getMinutes() === 0
    ? d.toLocaleDateString([], { month: 'short', day: 'numeric' })
    : hm;
}
