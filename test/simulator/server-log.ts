// ComfyUI's in-memory log (`app/logger.py`, comfyui-protocol.md §15): stdout and stderr are
// intercepted and every `write()` is kept as `{t, m}` — `t` the server's local time as a naive
// `datetime.isoformat()` (no zone), `m` what was written (a part of a line, a line, or a whole
// traceback) — in a ring of the last 300 writes, served by `GET /internal/logs/raw`.

/** `setup_logger(capacity=300)`. */
export const LOG_CAPACITY = 300;

export interface LogEntry {
  t: string;
  m: string;
}

/** Python's `datetime.now().isoformat()` for `atMs` in a zone `utcOffsetMin` east of UTC (no `.ffffff` at 0 µs). */
export function naiveIso(atMs: number, utcOffsetMin: number): string {
  const d = new Date(atMs + utcOffsetMin * 60_000);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const base = `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}T${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
  const micros = d.getUTCMilliseconds() * 1000;
  return micros === 0 ? base : `${base}.${p(micros, 6)}`;
}

export class SimServerLog {
  private readonly entries: LogEntry[] = [];

  constructor(
    /** The server's zone, minutes east of UTC (default the host's, as `datetime.now()` uses). */
    private readonly utcOffsetMin: number = -new Date().getTimezoneOffset(),
  ) {}

  /** One `write()`; a write starting with `\r` replaces an unfinished last entry (progress bars). */
  write(m: string, atMs: number = Date.now()): void {
    const last = this.entries[this.entries.length - 1];
    if (m.startsWith('\r') && last && !last.m.endsWith('\n')) this.entries.pop();
    this.entries.push({ t: naiveIso(atMs, this.utcOffsetMin), m });
    if (this.entries.length > LOG_CAPACITY) this.entries.shift();
  }

  /** `logging.info(msg)` through the root logger's StreamHandler: one write of the message and its newline. */
  info(msg: string, atMs?: number): void {
    this.write(`${msg}\n`, atMs);
  }

  /** `get_logs()`: the ring, oldest first. */
  raw(): LogEntry[] {
    return [...this.entries];
  }
}
