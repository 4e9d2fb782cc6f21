/**
 * Times as the exports write them, in the local time of the machine running the engine: ISO 8601
 * with the offset (`2026-12-01T10:00:01.500+01:00` — exact, and sorts as text within one offset) and
 * a plain `2026-12-01 10:00:01` that spreadsheet apps read as a date-time, not as text.
 * Built from the native toISOString of the shifted instant, with the zone's offset looked up once per
 * quarter hour (zones change offset only on such boundaries): toLocaleString per cell would cost
 * more than the query at 100k rows.
 */

const two = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** `2026-12-01T10:00:01.500` — the wall clock at `offsetMinutes` east of UTC, without a zone. */
function wallClock(ms: number, offsetMinutes: number): string {
  return new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 23);
}

const QUARTER_HOUR = 15 * 60_000;
let cachedQuarter = Number.NaN;
let cachedOffset = 0;

/** The local offset at `ms`, in minutes east of UTC (the opposite sign of getTimezoneOffset). */
export function localOffsetMinutes(ms: number): number {
  const quarter = Math.floor(ms / QUARTER_HOUR);
  if (quarter !== cachedQuarter) {
    const off = -new Date(ms).getTimezoneOffset();
    // -0 for UTC would print as "-00:00".
    cachedOffset = off === 0 ? 0 : off;
    cachedQuarter = quarter;
  }
  return cachedOffset;
}

export function isoWithOffset(ms: number, offsetMinutes: number): string {
  const abs = Math.abs(offsetMinutes);
  return `${wallClock(ms, offsetMinutes)}${offsetMinutes < 0 ? '-' : '+'}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

export function spreadsheetWithOffset(ms: number, offsetMinutes: number): string {
  const w = wallClock(ms, offsetMinutes);
  return `${w.slice(0, 10)} ${w.slice(11, 19)}`;
}

/** ISO 8601 with the local offset; '' for no time. */
export function isoLocal(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '' : isoWithOffset(ms, localOffsetMinutes(ms));
}

/** Local date and time a spreadsheet parses (`YYYY-MM-DD HH:MM:SS`); '' for no time. */
export function spreadsheetLocal(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '' : spreadsheetWithOffset(ms, localOffsetMinutes(ms));
}
