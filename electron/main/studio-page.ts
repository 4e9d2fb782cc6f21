/**
 * In studio mode the app's page must be allowed to connect to the farm, but renderer/index.html's
 * own CSP meta tag says `connect-src 'self'` (right for `serve` and for "This computer"), and a
 * meta policy applies on top of the header. So the file scheme's handler serves index.html with
 * the studio policy in its meta tag (exactly the farm's origin added) and every other file as is.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withMetaCsp } from './farm-choice.js';
import { studioCsp } from './security.js';

export function studioPageHandler(
  indexHtml: string,
  origin: string,
  passThrough: (req: Request) => Promise<Response>,
): (req: Request) => Promise<Response> {
  const meta = studioCsp(origin).meta;
  return async (req) => {
    let path: string | null = null;
    try {
      path = fileURLToPath(req.url);
    } catch {
      path = null;
    }
    if (path !== null && resolve(path) === resolve(indexHtml)) {
      return new Response(withMetaCsp(readFileSync(indexHtml, 'utf8'), meta), {
        headers: { 'content-type': 'text/html; charset=utf-8' },
      });
    }
    return passThrough(req);
  };
}
