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

/** The caller of a request that passed the host/origin checks. */
export function authenticate(req: IncomingMessage, url: URL, engine: Engine, backoff: BadTokenBackoff): Authenticated {
  if (!engine.peopleDefined()) return { ok: true, caller: LOCAL_CALLER };
  const address = req.socket.remoteAddress ?? 'unknown';
  const wait = backoff.waitMs(address);
  if (wait > 0) {
    const s = Math.ceil(wait / 1000);
    return { ok: false, status: 429, message: `Too many wrong access tokens from this address; try again in ${s} s.`, retryAfterS: s };
  }
  const id = engine.identify(presentedToken(req, url));
  if (id.ok) {
    backoff.succeeded(address);
    return id;
  }
  // A request without any token (a page's first look) is not a guess; a wrong one is.
  if (id.why !== 'missing') backoff.failed(address);
  return { ok: false, status: 401, message: WORDS[id.why] };
}
