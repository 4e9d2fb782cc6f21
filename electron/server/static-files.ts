/**
 * Serves the built renderer (dist/renderer): files by name, and index.html for any other GET that
 * looks like an app route (SPA fallback). Paths are resolved inside the folder; nothing else on disk
 * is reachable.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

/** The app shell's CSP: same-origin scripts only; images also from blob: (thumbnails). */
const CSP =
  "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

export function staticHandler(dir: string): (pathname: string, res: ServerResponse, headOnly: boolean) => boolean {
  const root = resolve(dir);
  return (pathname, res, headOnly) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return false;
    }
    if (decoded.includes('\0')) return false;
    const candidate = resolve(root, `.${normalize(`/${decoded}`)}`);
    let file =
      candidate.startsWith(root + sep) && existsSync(candidate) && statSync(candidate).isFile() ? candidate : null;
    // App routes (no extension) fall back to index.html; a missing asset is a real 404.
    if (!file && extname(decoded) === '') file = join(root, 'index.html');
    if (!file || !existsSync(file)) return false;
    const immutable = file.includes(`${sep}assets${sep}`);
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': statSync(file).size,
      'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    if (headOnly) res.end();
    else createReadStream(file).pipe(res);
    return true;
  };
}
