/**
 * Who may talk to the server. Loopback by default with no token; any other listen address needs
 * a bearer token. Browsers are held to the server's own origin either way:
 * - loopback mode also checks the Host header, so a DNS-rebound page (evil.example → 127.0.0.1)
 *   cannot read the API even though its Origin would match its own Host;
 * - token mode compares Origin with the Host the browser used (the token itself stops rebinding).
 * Requests without an Origin header (curl, scripts, the CLI) are not browsers and pass that check.
 * The desktop app in studio mode is a page from the app's own files (Origin `null`, or `file://`
 * in some Electron versions): it is let in only where a token is required and presented, and gets
 * CORS answers (corsHeaders) — the token is what admits it, as it admits a script.
 */
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { sameSecret } from '../engine/hosting/http-util.js';

/** The Origin a desktop studio-mode page sends (its page is a file of the app, an opaque origin). */
export function isDesktopOrigin(origin: string): boolean {
  return origin === 'null' || origin === 'file://';
}

/**
 * CORS answers for the desktop studio-mode page, only where a token is required: the preflight of
 * a JSON call or an upload, and the real answer. No credentials (cookies) are ever involved.
 */
export function corsHeaders(origin: string | undefined, policy: AccessPolicy): Record<string, string> | null {
  if (origin === undefined || !isDesktopOrigin(origin) || !tokenRequired(policy)) return null;
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': 'GET, POST, PUT',
    'access-control-allow-headers': 'authorization, content-type',
    'access-control-max-age': '600',
    // An export's dated file name, read by the desktop page that saves it.
    'access-control-expose-headers': 'content-disposition',
    vary: 'origin',
  };
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1';
  return false;
}

export interface AccessPolicy {
  /** null = no shared token (loopback only, unless people are defined). */
  token: string | null;
  loopbackOnly: boolean;
  /** People are defined: every call needs a personal token, checked by people-access.ts. */
  personalTokens?: boolean;
}

/** Whether a caller must present a token (the shared one, or a person's own). */
function tokenRequired(policy: AccessPolicy): boolean {
  return policy.token !== null || policy.personalTokens === true;
}

export type AccessVerdict = { ok: true } | { ok: false; status: 401 | 403; message: string };

function hostOf(value: string): string | null {
  try {
    return new URL(`http://${value}`).hostname;
  } catch {
    return null;
  }
}

/**
 * Checks Host/Origin and, when required, the shared token: `given` is what the request presented
 * (the header's, or the one its ticket stands for: people-access.ts requestToken); undefined for
 * the static app shell and the sign-in route, which need none.
 */
export function checkAccess(
  req: IncomingMessage,
  policy: AccessPolicy,
  given: string | null | undefined,
): AccessVerdict {
  const host = req.headers.host ?? '';
  const origin = req.headers.origin;
  if (policy.loopbackOnly) {
    const h = hostOf(host);
    if (!h || !isLoopbackHost(h))
      return { ok: false, status: 403, message: 'This server answers only on its loopback address.' };
  }
  // Either scheme for the same Host: behind a TLS reverse proxy (docs/studio-farm.md → HTTPS) the page is https while we are http.
  const desktop = origin !== undefined && isDesktopOrigin(origin) && tokenRequired(policy);
  if (origin !== undefined && origin !== `http://${host}` && origin !== `https://${host}` && !desktop) {
    return {
      ok: false,
      status: 403,
      message: `Requests from ${origin} are not allowed; open Shotfarm from its own address.`,
    };
  }
  if (policy.token !== null && given !== undefined) {
    if (!given || !sameSecret(given, policy.token)) {
      return {
        ok: false,
        status: 401,
        message:
          'A valid access token is required: open the URL printed by `shotfarm serve`, or send "Authorization: Bearer <token>".',
      };
    }
  }
  return { ok: true };
}
