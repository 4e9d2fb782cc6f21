/**
 * When this engine itself last stopped listening: its process frozen (SIGSTOP, a VM or laptop
 * suspend), a long GC, or a long synchronous step blocking the event loop. During such a stall no
 * WebSocket frame is read and every request's deadline runs out at once on waking, so a workstation
 * that answered all along looks silent for the length of the stall. Lost contact is judged only from
 * the end of the engine's last stall (contact.ts): a workstation gets its whole grace time again after
 * the engine comes back, instead of being given up at once and its render requeued — the chaos bench's
 * "rendered twice" jobs were exactly that.
 *
 * A real-time measure, like the request deadlines it protects: a repeating timer on the real event
 * loop notices it ran late, by the monotonic clock (a frozen process) or by the wall clock (a
 * suspended machine, where the monotonic clock stops too); the end of the stall is stamped with the
 * engine's (injected) clock. A wall clock set forward reads as a stall: harmless, a grace renewed.
 */
import type { Clock } from './clock.js';

/** How often the loop is checked (ms). */
const TICK_MS = 250;
/** Lateness that counts as a stall (ms): far above a busy loop's ordinary delays, well under any grace time (≥ 2 s). */
export const STALL_MS = 1_000;

export interface LoopStallDeps {
  clock: Clock;
  log: (message: string) => void;
  /** The real monotonic time (ms); tests replace it. */
  monotonic?: () => number;
}

export class LoopStall {
  private timer: NodeJS.Timeout | null = null;
  private expected = 0;
  private expectedWall = 0;
  private since = 0;
  private readonly monotonic: () => number;

  constructor(private readonly d: LoopStallDeps) {
    this.monotonic = d.monotonic ?? (() => performance.now());
  }

  start(): void {
    if (this.timer) return;
    this.expected = this.monotonic() + TICK_MS;
    this.expectedWall = this.d.clock.now() + TICK_MS;
    this.timer = setInterval(() => this.tick(), TICK_MS);
    // Watching the loop must never keep a CLI or a test process alive on its own.
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The engine's clock time at the end of its last stall (0: none seen since start). */
  listeningSince(): number {
    return this.since;
  }

  /** One check: a tick later than STALL_MS past its time was a stall that ends now. */
  tick(): void {
    const now = this.monotonic();
    const wall = this.d.clock.now();
    const late = Math.max(now - this.expected, wall - this.expectedWall);
    this.expected = now + TICK_MS;
    this.expectedWall = wall + TICK_MS;
    if (late < STALL_MS) return;
    this.since = wall;
    this.d.log(
      `the engine itself stopped for ${(late / 1000).toFixed(1)} s (frozen, suspended or blocked); workstations get a fresh grace time before any counts as lost`,
    );
  }
}

/**
 * When a silence began as this engine heard it: at `since` (the last answer, the first failed ask,
 * the last frame), or at the end of the engine's own later stall, whichever is later. Every grace
 * time and stall timeout of both pools counts from here, so none runs out while the engine was not listening.
 */
export function heardSilentSince(since: number, listeningSince: number): number {
  return Math.max(since, listeningSince);
}
