/**
 * The browser's sign-in, kept by the server as a cookie (docs/studio-farm.md → Signing in): the
 * person's token in an HttpOnly cookie (no script on the page can read it), SameSite=Strict (no
 * other site's page or link sends it), Secure when the page is https. The page then never holds
 * the token, and no URL it requests carries it (the socket, thumbnails and downloads send the
 * cookie). The name carries the server's port: cookies are per host, not per port, and two farms
 * on one host must not see each other's tokens.
 */
import type { IncomingMessage } from 'node:http';

/** How long a browser stays signed in; a revoked token ends it at once regardless. */
export const SIGN_IN_MAX_AGE_S = 30 * 24 * 3600;

/**
 * The header a cookie-authenticated request that changes something must carry. A page of another
 * site cannot add it without a CORS preflight this server never grants, and SameSite=Strict already
 * keeps the cookie off cross-site requests: two locks on the same door, so an older browser that
 * ignores SameSite still cannot be made to act.
 */
export const CSRF_HEADER = 'x-shotfarm-request';

export function sessionCookieName(port: number): string {
  return `shotfarm_session_${port}`;
}

/** The named cookie's value, or null (the Cookie header is parsed by hand: `name=value; name2=value2`). */
export function cookieValue(req: IncomingMessage, name: string): string | null {
  const header = req.headers.cookie;
  if (typeof header !== 'string') return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(value) || null;
    } catch {
      return null;
    }
  }
  return null;
}

/** Whether the browser reached us over https: our own TLS, or a TLS reverse proxy that says so. */
export function overHttps(req: IncomingMessage, ownTls: boolean): boolean {
  return ownTls || req.headers['x-forwarded-proto'] === 'https';
}

/** The Set-Cookie value that signs this browser in with `token` (null: signs it out). */
export function sessionCookie(name: string, token: string | null, secure: boolean): string {
  const parts = [
    `${name}=${token === null ? '' : encodeURIComponent(token)}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${token === null ? 0 : SIGN_IN_MAX_AGE_S}`,
  ];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}
