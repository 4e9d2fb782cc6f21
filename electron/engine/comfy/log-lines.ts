/**
 * ComfyUI's log buffer (`GET /internal/logs/raw`, protocol §15) made into lines on the farm's clock:
 * an entry is one stdout/stderr `write()` (a part of a line, a line, or a whole traceback), stamped
 * with the server's local time and no zone. Pure: the caller fetched the answer and says when.
 */
import {
  SERVER_LOG_LINE_MAX_CHARS,
  SERVER_LOG_MAX_CHARS,
  SERVER_LOG_MAX_LINES,
  type ServerLog,
  type ServerLogLine,
} from '../../../shared/server-log.js';

export interface RawEntry {
  t: string;
  m: string;
}

const QUARTER_HOUR_MS = 15 * 60_000;
const NAIVE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;
const ZONED = /(?:Z|[+-]\d{2}:?\d{2})$/;
// Colours and cursor moves a custom node's output may carry (the drawer shows plain text).
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** A naive `datetime.isoformat()` read as if it were UTC (ms), or null when it is not one. */
export function naiveMs(t: string): number | null {
  const m = NAIVE.exec(t);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac] = m;
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
  return Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
}

/**
 * How to put the server's stamps on the farm's clock. `t` is the server's local time with no zone:
 * the zone is the newest entry's naive time minus the server's UTC "now" (its `Date` header), rounded
 * to 15 minutes — right after a failure that logged its traceback, the newest entry is seconds old.
 * The `Date` also gives the server's clock against ours (1 s resolution). Without a `Date` header,
 * the server's clock is taken to be ours.
 */
export function stampReader(
  entries: readonly RawEntry[],
  date: string | null,
  receivedAt: number,
): (t: string) => number | null {
  const serverNow = date === null ? Number.NaN : Date.parse(date);
  const skew = Number.isFinite(serverNow) ? serverNow - receivedAt : 0;
  const now = receivedAt + skew;
  let newest: number | null = null;
  for (let i = entries.length - 1, seen = 0; i >= 0 && newest === null && seen < 50; i--, seen++)
    newest = ZONED.test(entries[i]!.t) ? null : naiveMs(entries[i]!.t);
  const zone = newest === null ? 0 : Math.round((newest - now) / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
  return (t) => {
    if (ZONED.test(t)) {
      const at = Date.parse(t);
      return Number.isFinite(at) ? at - skew : null;
    }
    const n = naiveMs(t);
    return n === null ? null : n - zone - skew;
  };
}

/** What a terminal shows of a line: the text after its last carriage return, no colours, no trailing blanks. */
function shown(raw: string): string {
  const parts = raw.replace(ANSI, '').split('\r');
  let text = parts.pop() ?? '';
  while (text.trim() === '' && parts.length > 0) text = parts.pop() ?? '';
  return text.trimEnd();
}

function bounded(text: string): string {
  if (text.length <= SERVER_LOG_LINE_MAX_CHARS) return text;
  return `${text.slice(0, SERVER_LOG_LINE_MAX_CHARS)} … (${text.length - SERVER_LOG_LINE_MAX_CHARS} characters cut)`;
}

/** The entries as lines, each stamped with the time of the write that began it (null: unreadable stamp). */
export function linesOf(
  entries: readonly RawEntry[],
  at: (t: string) => number | null,
): { at: number | null; text: string }[] {
  const lines: { at: number | null; text: string }[] = [];
  let open: { at: number | null; text: string } | null = null;
  for (const e of entries) {
    const stamp = at(e.t);
    const pieces = e.m.split('\n');
    pieces.forEach((piece, i) => {
      const last = i === pieces.length - 1;
      if (open === null) {
        if (last && piece === '') return;
        open = { at: stamp, text: '' };
      }
      open.text += piece;
      if (!last) {
        lines.push(open);
        open = null;
      }
    });
  }
  if (open !== null) lines.push(open);
  return lines.map((l) => ({ at: l.at, text: shown(l.text) })).filter((l) => l.text !== '');
}

/**
 * The lines of [from, to] on the farm's clock, within the bounds (shared/server-log.ts): the newest
 * kept — the failure is at the end of the window — and how many older ones were left out.
 */
export function windowLog(
  entries: readonly RawEntry[],
  date: string | null,
  receivedAt: number,
  from: number,
  to: number,
): Extract<ServerLog, { kind: 'lines' }> {
  const inWindow = linesOf(entries, stampReader(entries, date, receivedAt)).filter(
    (l): l is ServerLogLine => l.at !== null && l.at >= from && l.at <= to,
  );
  const kept: ServerLogLine[] = [];
  let chars = 0;
  for (let i = inWindow.length - 1; i >= 0 && kept.length < SERVER_LOG_MAX_LINES; i--) {
    const text = bounded(inWindow[i]!.text);
    if (chars + text.length > SERVER_LOG_MAX_CHARS) break;
    chars += text.length;
    kept.push({ at: Math.max(0, Math.round(inWindow[i]!.at)), text });
  }
  kept.reverse();
  return { kind: 'lines', from, to, lines: kept, cut: inWindow.length - kept.length };
}
