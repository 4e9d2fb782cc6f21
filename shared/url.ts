/** An http(s) URL with a host, as a schema: workstation endpoints and webhooks share it. */
import { z } from 'zod';

export function httpUrlSchema(example: string) {
  return z
    .string()
    .trim()
    .refine((s) => {
      try {
        const u = new URL(s);
        return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
      } catch {
        return false;
      }
    }, `must be an http:// or https:// URL such as ${example}`);
}

/** What a masked part of a URL shows instead of the secret. */
export const MASK = '***';

/**
 * A path segment that may be a token: anything but lower-case letters and `. _ ~ -` (a digit, a
 * capital, a percent-escape), or longer than 20 characters — Slack's `T0…/B0…/xxxx`, Discord's
 * `<id>/<token>`, Teams' GUIDs. Plain words such as `hooks`, `services` or `api` stay readable.
 */
function mayBeSecret(segment: string): boolean {
  return segment.length > 20 || /[^a-z._~-]/.test(segment);
}

/**
 * The URL as an answer may show it: user and password, every query value and the path segments
 * that may be tokens replaced by `***`. The scheme, host, port and plain path words stay, so the
 * operator still sees where it goes. Text that is not a URL is masked whole.
 */
export function maskUrlSecrets(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return MASK;
  }
  const auth = u.username || u.password ? `${MASK}@` : '';
  const path = u.pathname
    .split('/')
    .map((seg) => (seg === '' || !mayBeSecret(seg) ? seg : MASK))
    .join('/');
  const query = [...u.searchParams.keys()].map((k) => `${encodeURIComponent(k)}=${MASK}`).join('&');
  return `${u.protocol}//${auth}${u.host}${path}${query ? `?${query}` : ''}${u.hash ? `#${MASK}` : ''}`;
}
