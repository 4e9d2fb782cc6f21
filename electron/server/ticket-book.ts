/**
 * The tickets `serve` has handed out (shared/tickets.ts), in this process's memory only: a restart
 * forgets them all, nothing writes them to the store or a log. A ticket holds the token it was
 * made for; redeeming it gives that token back, and the caller judges it as if it had been sent in
 * the header — so a person revoked (or given a new token) after the ticket was made is refused at
 * its use, and `forget` drops their tickets at once anyway. Bounded: at most `maxTickets` alive,
 * the oldest dropped first (a client asks again), expired ones swept at each new ticket.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../engine/clock.js';
import { TICKET_TTL_MS, type TicketUse } from '../../shared/tickets.js';

interface Entry {
  use: TicketUse;
  /** The token it stands for; null on a farm that asks none (loopback, no people). */
  token: string | null;
  expiresAt: number;
}

export type Redeemed = { ok: true; token: string | null } | { ok: false; why: 'unknown' | 'expired' | 'wrong-use' };

export class TicketBook {
  private readonly tickets = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    private readonly maxTickets = 10_000,
  ) {}

  issue(use: TicketUse, token: string | null): { ticket: string; expiresInS: number } {
    this.sweep();
    while (this.tickets.size >= this.maxTickets) {
      const oldest = this.tickets.keys().next().value;
      if (oldest === undefined) break;
      this.tickets.delete(oldest);
    }
    const ticket = randomBytes(32).toString('base64url');
    const ttl = TICKET_TTL_MS[use];
    this.tickets.set(ticket, { use, token, expiresAt: this.clock.now() + ttl });
    return { ticket, expiresInS: Math.round(ttl / 1000) };
  }

  /** The token a ticket stands for, for a request of `use`; a socket ticket is spent by its first use, even a refused one. */
  redeem(ticket: string, use: TicketUse): Redeemed {
    const entry = this.tickets.get(ticket);
    if (!entry) return { ok: false, why: 'unknown' };
    if (entry.expiresAt <= this.clock.now()) {
      this.tickets.delete(ticket);
      return { ok: false, why: 'expired' };
    }
    if (entry.use !== use) return { ok: false, why: 'wrong-use' };
    if (use === 'socket') this.tickets.delete(ticket);
    return { ok: true, token: entry.token };
  }

  /** Drops every ticket whose token `stillValid` no longer accepts (a revoked person's); asks once per token. */
  forget(stillValid: (token: string | null) => boolean): void {
    const verdicts = new Map<string | null, boolean>();
    for (const [ticket, entry] of this.tickets) {
      let valid = verdicts.get(entry.token);
      if (valid === undefined) verdicts.set(entry.token, (valid = stillValid(entry.token)));
      if (!valid) this.tickets.delete(ticket);
    }
  }

  get size(): number {
    return this.tickets.size;
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [ticket, entry] of this.tickets) if (entry.expiresAt <= now) this.tickets.delete(ticket);
  }
}
