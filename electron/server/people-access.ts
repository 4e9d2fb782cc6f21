/**
 * Who is calling `serve`, once people are defined: every API call, file and the WebSocket need a
 * personal token — `Authorization: Bearer` (scripts, the CLI, the desktop app), the browser's
 * sign-in cookie (session-cookie.ts), or a short-lived ticket standing for one (`?ticket=`, on the
 * events socket and file links only, which cannot send a header: ticket-book.ts) — looked up in the
 * store at each request: no cache, so a revocation counts on the next call. A long-lived token in
 * an address (`?token=`) is refused everywhere: addresses end up in histories, proxy logs and
 * copied links. Without people, today's rules hold (loopback: the solo operator; elsewhere the one
 * printed token, by header or ticket) and the caller is `local`.
 * A token is never written anywhere by this module: not in a log line, not in an answer.
 */
import type { IncomingMessage } from 'node:http';
import { LOCAL_CALLER, type Caller } from '../../shared/people.js';
import type { Engine } from '../engine/engine.js';
import { presentedToken } from '../engine/hosting/http-util.js';
import { TICKET_PATH, type TicketUse } from '../../shared/tickets.js';
import type { BadTokenBackoff } from './bad-token-backoff.js';
import { cookieValue } from './session-cookie.js';
import type { TicketBook } from './ticket-book.js';

/** Why a request was not let in: the page's sign-in screen says which (the envelope's `details.reason`). */
export type RefusalReason = 'missing' | 'unknown' | 'revoked' | 'slowed';

export type Authenticated =
  | { ok: true; caller: Caller; via: TokenSource }
  | { ok: false; status: 401 | 429; message: string; reason: RefusalReason; retryAfterS?: number };

/** Where the token came from: a cookie-authenticated change must also pass the CSRF check (server.ts). */
export type TokenSource = 'none' | 'header' | 'cookie' | 'ticket';

/** The token a request presents, or why what it presents is refused before any token is judged. */
export type Presented =
  | { ok: true; token: string | null; via: TokenSource }
  | { ok: false; status: 401; message: string; reason: 'missing' | 'unknown' };

export const NOTHING_PRESENTED: Presented = { ok: true, token: null, via: 'none' };

const WORDS = {
  missing:
    'A personal access token is required: sign in on the farm\'s page, or send "Authorization: Bearer <token>". Ask an admin for one (shotfarm users add).',
  unknown: 'This access token is not valid. Ask an admin for a new one (shotfarm users token NAME).',
  revoked: 'This access token was revoked. Ask an admin for a new one (shotfarm users token NAME).',
} as const;

const TOKEN_IN_ADDRESS = `An access token in the address (?token=) is not accepted: addresses are kept in browser histories, proxy logs and copied links. Send it in the "Authorization: Bearer <token>" header, sign in on the farm's page, or ask POST ${TICKET_PATH} for a short-lived ticket (?ticket=) for the events socket and file links.`;

const TICKET_WORDS = {
  unknown: `This ticket is not known (tickets live a few minutes, in the server's memory only); ask POST ${TICKET_PATH} for a new one.`,
  expired: `This ticket has expired or was used already; ask POST ${TICKET_PATH} for a new one.`,
  'wrong-use':
    'This ticket is for another kind of request (a socket ticket opens the events socket once; a files ticket opens file links and downloads).',
  nowhere: `A ticket opens only the events socket and file links (GET); this request needs the "Authorization: Bearer <token>" header or the sign-in cookie.`,
} as const;

/**
 * The token a request presents and where: the header first, then the sign-in cookie, then a ticket
 * (where `ticketUse` says this request may use one: tickets.redeem spends a socket ticket). A token
 * in the query string is refused outright, even a valid one, even beside a header.
 */
export function requestToken(
  req: IncomingMessage,
  url: URL,
  cookieName: string,
  tickets: TicketBook | null,
  ticketUse: TicketUse | null,
): Presented {
  if (url.searchParams.has('token')) return { ok: false, status: 401, message: TOKEN_IN_ADDRESS, reason: 'missing' };
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer '))
    return { ok: true, token: presentedToken(req), via: 'header' };
  const cookie = cookieValue(req, cookieName);
  if (cookie) return { ok: true, token: cookie, via: 'cookie' };
  const ticket = url.searchParams.get('ticket');
  if (ticket === null) return NOTHING_PRESENTED;
  if (tickets === null || ticketUse === null)
    return { ok: false, status: 401, message: TICKET_WORDS.nowhere, reason: 'missing' };
  const redeemed = tickets.redeem(ticket, ticketUse);
  if (!redeemed.ok) return { ok: false, status: 401, message: TICKET_WORDS[redeemed.why], reason: 'unknown' };
  return { ok: true, token: redeemed.token, via: 'ticket' };
}

/**
 * A presented token → the person, or why not. A valid one always passes, so a revoked person's
 * open tab (or a stranger guessing) behind the same reverse proxy — one address for every browser —
 * can never lock the valid people out. Only wrong tokens are slowed down, per address; a good token
 * does not forgive its address's mistakes, or a guesser behind a shared proxy would be forgiven by
 * every colleague's call.
 */
export function judgeToken(
  token: string | null,
  address: string,
  engine: Engine,
  backoff: BadTokenBackoff,
): Authenticated {
  const id = engine.identify(token);
  if (id.ok) return { ok: true, caller: id.caller, via: 'none' };
  // A request without any token (a page's first look) is not a guess; a wrong one is.
  if (id.why === 'missing') return { ok: false, status: 401, message: WORDS.missing, reason: 'missing' };
  const wait = backoff.waitMs(address);
  if (wait > 0) {
    const s = Math.ceil(wait / 1000);
    return {
      ok: false,
      status: 429,
      message: `Too many wrong access tokens from this address; try again in ${s} s.`,
      reason: 'slowed',
      retryAfterS: s,
    };
  }
  backoff.failed(address);
  return { ok: false, status: 401, message: WORDS[id.why], reason: id.why };
}

/** The caller of a request that passed the host/origin checks, from what it presented (requestToken). */
export function authenticate(
  req: IncomingMessage,
  presented: Extract<Presented, { ok: true }>,
  engine: Engine,
  backoff: BadTokenBackoff,
): Authenticated {
  if (!engine.peopleDefined()) return { ok: true, caller: LOCAL_CALLER, via: 'none' };
  const { token, via } = presented;
  const judged = judgeToken(token, req.socket.remoteAddress ?? 'unknown', engine, backoff);
  return judged.ok ? { ...judged, via } : judged;
}
