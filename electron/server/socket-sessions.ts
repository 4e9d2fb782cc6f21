/**
 * An events socket outlives the request that opened it, so its token is checked again every
 * second: once it is revoked or replaced (or people were defined after a tokenless loopback page
 * connected), the socket is closed — a revoked person stops receiving the farm's events too. The
 * token is held in memory only, beside its socket. The same check drops the tickets of a revoked
 * token (each ticket is judged again when used anyway: ticket-book.ts).
 */
import type { Duplex } from 'node:stream';
import type { Engine } from '../engine/engine.js';
import type { TicketBook } from './ticket-book.js';

export interface SocketSessions {
  track(socket: Duplex, token: string | null): void;
  /** One check now (the timer calls it; tests may too). */
  check(): void;
  close(): void;
}

export function socketSessions(engine: Engine, tickets: TicketBook | null, intervalMs = 1_000): SocketSessions {
  const open = new Map<Duplex, string | null>();
  let timer: unknown = null;
  let closed = false;
  const check = (): void => {
    if (!engine.peopleDefined()) return;
    if (tickets !== null && tickets.size > 0) tickets.forget((token) => engine.identify(token).ok);
    for (const [socket, token] of open) {
      if (!engine.identify(token).ok) {
        open.delete(socket);
        socket.destroy();
      }
    }
  };
  const arm = (): void => {
    if (closed) return;
    timer = engine.timers.setTimeout(() => {
      try {
        check();
      } finally {
        arm();
      }
    }, intervalMs);
  };
  arm();
  return {
    track(socket, token) {
      open.set(socket, token);
      socket.once('close', () => open.delete(socket));
    },
    check,
    close() {
      closed = true;
      if (timer !== null) engine.timers.clearTimeout(timer);
      open.clear();
    },
  };
}
