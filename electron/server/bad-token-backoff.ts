/**
 * Repeated wrong tokens from one address are slowed down: a few mistakes are free (a typo, a stale
 * tab), then each further one closes the address for a doubling time, up to a bound. While closed,
 * the address's wrong tokens are answered 429 at once — so guessing costs the guesser time — while
 * a valid token from the same address still passes (people-access.ts looks at the token first:
 * behind a reverse proxy every browser shares one address). In memory only (a restart forgets),
 * bounded in size, on the injected clock; only time forgives an address.
 */
import type { Clock } from '../engine/clock.js';

export interface BackoffOptions {
  /** Wrong tokens allowed before the address is slowed down. */
  free: number;
  /** The first closed time; it doubles with each further wrong token. */
  baseMs: number;
  maxMs: number;
  /** An address with no wrong token for this long starts afresh. */
  forgetMs: number;
  /** At most this many addresses remembered (the oldest forgotten first). */
  maxAddresses: number;
}

export const BACKOFF_DEFAULTS: BackoffOptions = {
  free: 5,
  baseMs: 1_000,
  maxMs: 60_000,
  forgetMs: 15 * 60_000,
  maxAddresses: 10_000,
};

interface Entry {
  failures: number;
  lastAt: number;
  closedUntil: number;
}

export class BadTokenBackoff {
  private readonly entries = new Map<string, Entry>();
  private readonly o: BackoffOptions;

  constructor(
    private readonly clock: Clock,
    opts: Partial<BackoffOptions> = {},
  ) {
    this.o = { ...BACKOFF_DEFAULTS, ...opts };
  }

  /** Milliseconds the address must still wait (0: it may try). */
  waitMs(address: string): number {
    const e = this.entry(address);
    return e ? Math.max(0, e.closedUntil - this.clock.now()) : 0;
  }

  /** A wrong, unknown or revoked token came from the address. */
  failed(address: string): void {
    const now = this.clock.now();
    const e = this.entry(address) ?? { failures: 0, lastAt: now, closedUntil: 0 };
    e.failures++;
    e.lastAt = now;
    const over = e.failures - this.o.free;
    if (over > 0) e.closedUntil = now + Math.min(this.o.maxMs, this.o.baseMs * 2 ** Math.min(over - 1, 30));
    this.entries.delete(address); // re-inserted last: Map order is the eviction order
    this.entries.set(address, e);
    while (this.entries.size > this.o.maxAddresses) this.entries.delete(this.entries.keys().next().value as string);
  }

  private entry(address: string): Entry | undefined {
    const e = this.entries.get(address);
    if (e && this.clock.now() - e.lastAt > this.o.forgetMs && this.clock.now() >= e.closedUntil) {
      this.entries.delete(address);
      return undefined;
    }
    return e;
  }
}
