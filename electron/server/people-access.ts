/**
 * Who is calling `serve`, once people are defined: every API call, file and the WebSocket need a
 * personal token — `Authorization: Bearer` (scripts, the CLI, the desktop app), the browser's
 * sign-in cookie (session-cookie.ts), or `?token=` (the desktop app's event socket and file links,
 * which cannot send a header or a cookie) — looked up in the store at each request: no cache, so a
 * revocation counts on the next call. Without people, today's rules hold (loopback: the solo
 * operator; elsewhere the one printed token) and the caller is `local`.
 * A token is never written anywhere by this module: not in a log line, not in an answer.
 */
import type { IncomingMessage } from 'node:http';
import { LOCAL_CALLER, type Caller } from '../../shared/people.js';
import type { Engine } from '../engine/engine.js';
import { presentedToken } from '../engine/hosting/http-util.js';
import type { BadTokenBackoff } from './bad-token-backoff.js';
import { cookieValue } from './session-cookie.js';

/** Why a request was not let in: the page's sign-in screen says which (the envelope's `details.reason`). */
export type RefusalReason = 'missing' | 'unknown' | 'revoked' | 'slowed';

export type Authenticated =
  | { ok: true; caller: Caller; via: TokenSource }
  | { ok: false; status: 401 | 429; message: string; reason: RefusalReason; retryAfterS?: number };

/** Where the token came from: a cookie-authenticated change must also pass the CSRF check (server.ts). */
export type TokenSource = 'none' | 'header' | 'cookie' | 'query';

const WORDS = {
  missing:
    'A personal access token is required: sign in on the farm\'s page, or send "Authorization: Bearer <token>". Ask an admin for one (shotfarm users add).',
  unknown: 'This access token is not valid. Ask an admin for a new one (shotfarm users token NAME).',
  revoked: 'This access token was revoked. Ask an admin for a new one (shotfarm users token NAME).',
} as const;

/** The token a request presents and where: the header first, then the sign-in cookie, then `?token=`. */
export function requestToken(
  req: IncomingMessage,
  url: URL,
  cookieName: string,
): { token: string | null; via: TokenSource } {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) return { token: presentedToken(req), via: 'header' };
  const cookie = cookieValue(req, cookieName);
  if (cookie) return { token: cookie, via: 'cookie' };
  const query = presentedToken(req, url);
  return query ? { token: query, via: 'query' } : { token: null, via: 'none' };
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

/** The caller of a request that passed the host/origin checks. */
export function authenticate(
  req: IncomingMessage,
  url: URL,
  engine: Engine,
  backoff: BadTokenBackoff,
  cookieName: string,
): Authenticated {
  if (!engine.peopleDefined()) return { ok: true, caller: LOCAL_CALLER, via: 'none' };
  const { token, via } = requestToken(req, url, cookieName);
  const judged = judgeToken(token, req.socket.remoteAddress ?? 'unknown', engine, backoff);
  return judged.ok ? { ...judged, via } : judged;
}
