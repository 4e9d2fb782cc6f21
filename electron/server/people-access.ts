/**
 * Who is calling `serve`, once people are defined: every API call, file and the WebSocket need a
 * personal token (`Authorization: Bearer`, or the page's `?token=`), looked up in the store at each
 * request — no cache, so a revocation counts on the next call. Without people, today's rules hold
 * (loopback: the solo operator; elsewhere the one printed token) and the caller is `local`.
 * A token is never written anywhere by this module: not in a log line, not in an answer.
 */
import type { IncomingMessage } from 'node:http';
import { LOCAL_CALLER, type Caller } from '../../shared/people.js';
import type { Engine } from '../engine/engine.js';
import { presentedToken } from '../engine/hosting/http-util.js';
import type { BadTokenBackoff } from './bad-token-backoff.js';

export type Authenticated = { ok: true; caller: Caller } | { ok: false; status: 401 | 429; message: string; retryAfterS?: number };

const WORDS = {
  missing: 'A personal access token is required: send "Authorization: Bearer <token>", or open the address with ?token=<token>. Ask an admin for one (shotfarm users add).',
  unknown: 'This access token is not valid. Ask an admin for a new one (shotfarm users token NAME).',
  revoked: 'This access token was revoked. Ask an admin for a new one (shotfarm users token NAME).',
} as const;

/**
 * The caller of a request that passed the host/origin checks. The token is looked at first: a
 * valid one always passes, so a revoked person's open tab (or a stranger guessing) behind the same
 * reverse proxy — one address for every browser — can never lock the valid people out. Only wrong
 * tokens are slowed down, per address; a good token does not forgive its address's mistakes, or a
 * guesser behind a shared proxy would be forgiven by every colleague's call.
 */
export function authenticate(req: IncomingMessage, url: URL, engine: Engine, backoff: BadTokenBackoff): Authenticated {
  if (!engine.peopleDefined()) return { ok: true, caller: LOCAL_CALLER };
  const id = engine.identify(presentedToken(req, url));
  if (id.ok) return id;
  // A request without any token (a page's first look) is not a guess; a wrong one is.
  if (id.why === 'missing') return { ok: false, status: 401, message: WORDS.missing };
  const address = req.socket.remoteAddress ?? 'unknown';
  const wait = backoff.waitMs(address);
  if (wait > 0) {
    const s = Math.ceil(wait / 1000);
    return { ok: false, status: 429, message: `Too many wrong access tokens from this address; try again in ${s} s.`, retryAfterS: s };
  }
  backoff.failed(address);
  return { ok: false, status: 401, message: WORDS[id.why] };
}
