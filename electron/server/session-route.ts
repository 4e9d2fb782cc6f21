/**
 * `/api/session`: a browser signs in and out of a farm with people (docs/studio-farm.md → Signing in).
 *
 *   GET    /api/session   who this browser is signed in as: 200 { people, person }, or the 401/429
 *                         envelope with `details.reason` missing | unknown | revoked | slowed
 *   POST   /api/session   { token }: checks it (wrong ones count toward the address's backoff) and
 *                         sets the HttpOnly sign-in cookie (session-cookie.ts); 404 without people
 *   DELETE /api/session   signs this browser out (the cookie is cleared)
 *
 * POST and DELETE need the CSRF header: another site's page can neither sign a browser in as
 * someone else nor sign it out.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { BodyTooLarge, envelope, readBody, sendError, sendJson } from '../engine/hosting/http-util.js';
import type { BadTokenBackoff } from './bad-token-backoff.js';
import { authenticate, judgeToken, requestToken, type Authenticated, type Presented } from './people-access.js';
import { CSRF_HEADER, overHttps, sessionCookie } from './session-cookie.js';

export interface SessionRouteOptions {
  engine: Engine;
  backoff: BadTokenBackoff;
  cookieName: string;
  ownTls: boolean;
}

const signInBody = z.strictObject({ token: z.string().trim().min(1).max(512) });

/** The refusal as an answer: its reason in `details`, so the page can say which one. */
export function sendRefusal(
  res: ServerResponse,
  refused: Extract<Authenticated, { ok: false }> | Extract<Presented, { ok: false }>,
): void {
  const retryAfterS = 'retryAfterS' in refused ? refused.retryAfterS : undefined;
  if (retryAfterS !== undefined) res.setHeader('retry-after', String(retryAfterS));
  const env = envelope(
    refused.status === 401 ? 'unauthorized' : 'unavailable',
    refused.message,
    refused.status === 429,
  );
  sendError(res, refused.status, {
    ...env,
    details: {
      reason: refused.reason,
      ...(retryAfterS === undefined ? {} : { retryAfterS }),
    },
  });
}

function person(who: Extract<Authenticated, { ok: true }>): { name: string; role: string } | null {
  return who.caller.kind === 'person' ? { name: who.caller.name, role: who.caller.role } : null;
}

export async function handleSession(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  o: SessionRouteOptions,
): Promise<void> {
  const people = o.engine.peopleDefined();
  if (req.method === 'GET' || req.method === 'HEAD') {
    // No ticket here: a ticket opens the socket and file links only.
    const presented = requestToken(req, url, o.cookieName, null, null);
    if (!presented.ok) return sendRefusal(res, presented);
    const who = authenticate(req, presented, o.engine, o.backoff);
    if (!who.ok) return sendRefusal(res, who);
    return sendJson(res, 200, { people, person: person(who) });
  }
  if (req.method !== 'POST' && req.method !== 'DELETE')
    return sendError(res, 405, envelope('bad_input', 'Sign in with POST, sign out with DELETE.'));
  if (req.headers[CSRF_HEADER] === undefined) {
    return sendError(
      res,
      403,
      envelope('forbidden', `Signing in or out needs the ${CSRF_HEADER} header (the farm's own page sends it).`),
    );
  }
  const secure = overHttps(req, o.ownTls);
  if (req.method === 'DELETE') {
    res.setHeader('set-cookie', sessionCookie(o.cookieName, null, secure));
    return sendJson(res, 200, { people, person: null });
  }
  if (!people)
    return sendError(
      res,
      404,
      envelope(
        'not_found',
        'This farm has no people to sign in as: it runs as the one operator (shotfarm users add defines people).',
      ),
    );
  let text: string;
  try {
    text = await readBody(req, 4_096);
  } catch (err) {
    if (err instanceof BodyTooLarge)
      return sendError(res, 413, envelope('bad_input', 'A sign-in is a token, not a file.'));
    throw err;
  }
  let parsed: ReturnType<typeof signInBody.safeParse>;
  try {
    parsed = signInBody.safeParse(JSON.parse(text));
  } catch {
    parsed = signInBody.safeParse(null);
  }
  if (!parsed.success)
    return sendError(
      res,
      400,
      envelope('bad_input', 'Paste the access token an admin gave you (shotfarm users add prints it).'),
    );
  const who = judgeToken(parsed.data.token, req.socket.remoteAddress ?? 'unknown', o.engine, o.backoff);
  if (!who.ok) return sendRefusal(res, who);
  res.setHeader('set-cookie', sessionCookie(o.cookieName, parsed.data.token, secure));
  return sendJson(res, 200, { people, person: person(who) });
}
