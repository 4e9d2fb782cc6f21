/**
 * The forecast (docs/forecast.md): per project, episode and sequence, when its remaining jobs are
 * expected to be done at the farm's current capacity — a range, p50 to p90 — against its due time.
 * Also the `due` of a shot list (a JSON field, a CSV `Due` column, an import option): when a job
 * should be done, as the engine stores it (epoch ms).
 */

export const FORECAST_KINDS = ['project', 'episode', 'sequence'] as const;
export type ForecastKind = (typeof FORECAST_KINDS)[number];

export interface ForecastGroup {
  kind: ForecastKind;
  /** "ep101" / "proj/ep101" / "proj/ep101/sq010": unique per kind. */
  key: string;
  project: string;
  episode: string | null;
  sequence: string | null;
  total: number;
  done: number;
  running: number;
  /** Waiting to run: queued, pending (waiting for a stage), retry waiting. */
  queued: number;
  /** Failed for good, held or cancelled: counted, never forecast. */
  other: number;
  /** Expected end of its last job (median); the latest finish when nothing is left; null when it cannot be forecast (no workstation can take a job). */
  p50At: number | null;
  p90At: number | null;
  /** The earliest due time of its unfinished jobs (or of its jobs when all are done); null when none. */
  dueAt: number | null;
  /** The forecast's p90 passes the due time (or it finished after it). */
  late: boolean;
  /** What would make a late group on time ("2 more GPUs or a bump would make it"); null otherwise. */
  remedy: string | null;
  /** Jobs that no healthy workstation can take now: the range leaves them out. */
  unplaced: number;
}

/** RunPod burst as the forecast counted it (docs/forecast.md#runpod-burst). */
export interface ForecastBurst {
  /** The endpoints were counted as extra capacity (burst allowed, budget left today, an endpoint healthy). */
  counted: boolean;
  /** Why not, in the burst policy's words ("cloud burst is off (…)", "today's cloud budget is spent (…)", "rp-a is unhealthy"); null when counted. */
  reason: string | null;
  /** Workers of the endpoints counted. */
  workers: number;
  budgetUsdPerDay: number;
  /** What is left of today's (UTC) budget. */
  leftTodayUsd: number;
  /** What the forecast sent there: how many jobs, what they cost, when the day's budget runs out (null: it does not). */
  jobs: number;
  costUsd: number;
  budgetOutAt: number | null;
}

export interface ForecastView {
  /** When it was computed (the forecast is recomputed as the farm runs, not per look). */
  at: number;
  /** Healthy workstation slots it was computed over. */
  slots: number;
  /** Why there is no forecast ("no healthy workstation", "the farm is paused"), or null. */
  note: string | null;
  groups: ForecastGroup[];
  /** RunPod burst, counted or why not; absent or null when no endpoint is registered. */
  burst?: ForecastBurst | null;
}

const dollars = (v: number): string => `$${v >= 10 ? Math.round(v).toLocaleString('en-US') : v.toFixed(2)}`;

/**
 * The forecast's words about the cloud: "incl. up to 4 RunPod workers, $12 of $50 left today — ≈ 30
 * jobs there (≈ $9), the budget runs out ≈ 07:40" or "RunPod not counted: today's cloud budget is
 * spent ($50.00 of $50.00)".
 */
export function burstWords(b: ForecastBurst, now: number): string {
  if (!b.counted) return `RunPod not counted: ${b.reason ?? 'burst is not allowed'}`;
  let w = `incl. up to ${b.workers} RunPod worker${b.workers === 1 ? '' : 's'}, ${dollars(b.leftTodayUsd)} of ${dollars(b.budgetUsdPerDay)} left today`;
  const parts: string[] = [];
  if (b.jobs > 0)
    parts.push(`≈ ${b.jobs.toLocaleString('en-US')} job${b.jobs === 1 ? '' : 's'} there (≈ ${dollars(b.costUsd)})`);
  if (b.budgetOutAt !== null) parts.push(`the budget runs out ≈ ${clockWords(b.budgetOutAt, now)}`);
  if (parts.length) w += ` — ${parts.join(', ')}`;
  return w;
}

/** The furthest ahead a due time may be (a typo like 20266 is refused, not stored). */
const MAX_AHEAD_MS = 5 * 366 * 24 * 3600_000;

/**
 * A due time as written in a shot list or given to the import: an ISO 8601 date and time
 * ("2026-12-05T09:00", "2026-12-05 09:00", with or without a zone; without one it is the engine's
 * local time), or a date alone (its end of day, 23:59 local). Returns epoch ms or a message a
 * person can act on.
 */
export function parseDue(text: string, now: number): { ok: true; value: number } | { ok: false; message: string } {
  const t = text.trim();
  const bad = {
    ok: false as const,
    message: `due "${text}" is not a date and time: write it as 2026-12-05T09:00 (local time), 2026-12-05T09:00Z or 2026-12-05`,
  };
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.exec(t);
  if (!m) return bad;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const parts = [Number(y), Number(mo) - 1, Number(d), Number(h ?? 23), Number(mi ?? 59), Number(s ?? 0)] as const;
  let value: number;
  if (zone) {
    const iso = `${y}-${mo}-${d}T${h}:${mi}:${s ?? '00'}${frac ?? ''}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`;
    value = Date.parse(iso);
  } else value = new Date(...parts).getTime();
  const check = new Date(value);
  if (!Number.isFinite(value) || (!zone && (check.getMonth() !== parts[1] || check.getDate() !== parts[2]))) return bad;
  if (Number(h ?? 0) > 23 || Number(mi ?? 0) > 59 || Number(s ?? 0) > 59) return bad;
  if (value > now + MAX_AHEAD_MS)
    return { ok: false, message: `due "${text}" is more than five years ahead: check the year` };
  return { ok: true, value };
}

/** "07:40" today, "Sat 07:40" within a week, "2026-12-12 07:40" further (the reader's local time). */
export function clockWords(at: number, now: number): string {
  const d = new Date(at);
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  const today = new Date(now);
  if (d.toDateString() === today.toDateString()) return hm;
  if (Math.abs(at - now) < 6 * 86_400_000) return `${d.toLocaleDateString('en-GB', { weekday: 'short' })} ${hm}`;
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')} ${hm}`;
}

/** The group's name as people say it: the episode, or "sequence sq010 of ep101", or the project. */
export function groupName(g: Pick<ForecastGroup, 'kind' | 'project' | 'episode' | 'sequence'>): string {
  if (g.kind === 'project') return g.project;
  if (g.kind === 'episode') return `${g.project}/${g.episode}`;
  return `${g.project}/${g.episode}/${g.sequence}`;
}

/** Its forecast in words: "done ≈ 07:40–08:25; due 09:00 ✓" / "due 06:00 ✗ — 2 more GPUs or a bump would make it". */
export function forecastWords(g: ForecastGroup, now: number): string {
  const left = g.total - g.done - g.other;
  let when: string;
  if (left === 0) when = g.p50At !== null ? `done at ${clockWords(g.p50At, now)}` : 'done';
  else if (g.p50At === null || g.p90At === null) when = 'no forecast (no healthy workstation can take its jobs)';
  else {
    const a = clockWords(g.p50At, now);
    const b = clockWords(g.p90At, now);
    when = `done ≈ ${a === b ? a : `${a}–${b}`}`;
    if (g.unplaced > 0) when += ` (${g.unplaced.toLocaleString('en-US')} no workstation can take left out)`;
  }
  if (g.dueAt === null) return when;
  const due = `due ${clockWords(g.dueAt, now)}`;
  if (!g.late) return `${when}; ${due} ✓`;
  return `${when}; ${due} ✗${g.remedy ? ` — ${g.remedy}` : ''}`;
}

/** One line of `shotfarm status`: "ep101: 340 jobs, done ≈ 07:40–08:25; due 09:00 ✓". */
export function forecastLine(g: ForecastGroup, now: number): string {
  return `${groupName(g)}: ${g.total.toLocaleString('en-US')} job${g.total === 1 ? '' : 's'}, ${forecastWords(g, now)}`;
}

/**
 * A job's ETA in a list (`jobs list`, the queue's rows): a running job's expected end from its
 * run-time figure, a waiting one's from the forecast ("≈ 07:40"), "—" when there is none.
 */
export function jobEtaWords(
  j: {
    state: string;
    startedAt: number | null;
    estimate?: { typicalMs: number } | null;
    forecastEnd?: { p50: number; p90: number } | null;
  },
  now: number,
): string {
  if (j.state === 'running' && j.startedAt !== null && j.estimate) {
    const end = j.startedAt + j.estimate.typicalMs;
    return end < now ? 'overdue' : `≈ ${clockWords(end, now)}`;
  }
  if (j.forecastEnd) return `≈ ${clockWords(j.forecastEnd.p50, now)}`;
  return '—';
}
