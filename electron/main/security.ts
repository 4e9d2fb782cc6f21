/**
 * The window's security posture (Electron's security checklist): a strict CSP, no navigation, no
 * new windows, no webviews, every permission denied, no request leaving the app's own files, and IPC
 * accepted only from the app's own page. The decisions are pure functions, tested in Node; the
 * `harden*` functions only attach them to Electron objects.
 */
import { fileURLToPath } from 'node:url';
import { isAbsolute, relative, resolve } from 'node:path';
import type { Session, WebContents } from 'electron';
import { ASSET_SCHEME, assetIdFromUrl } from './asset-protocol.js';
import { socketOrigin } from './farm-choice.js';

/**
 * The renderer's Content-Security-Policy: scripts and styles only from the app's files, no inline
 * script, no eval, no plugins, no frames, no remote connections; images also from the ledger's
 * thumbnail scheme (asset-protocol.ts). Used as a response header and, identically minus
 * `frame-ancestors` (which a meta tag cannot set), as the meta tag in renderer/index.html — which
 * the headless server's pages carry too (its WebSocket is same-origin, so `connect-src 'self'`
 * covers it; test/e2e/csp.test.ts loads the served app under this policy).
 */
export const CSP_DIRECTIVES: readonly string[] = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  `img-src 'self' data: blob: ${ASSET_SCHEME}:`,
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "frame-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
];
export const CSP_META = CSP_DIRECTIVES.join('; ');
export const CSP_HEADER = `${CSP_META}; frame-ancestors 'none'`;

/**
 * In studio mode (farm-choice.ts) the page talks to one remote server: connect-src allows exactly
 * its origin and that origin's WebSocket (http(s)://host:port, ws(s)://host:port), nothing else.
 */
export function studioCsp(origin: string): { meta: string; header: string } {
  // Thumbnails come from the farm too (/files/asset/<id>): img-src gets its http(s) origin.
  const meta = CSP_DIRECTIVES.map((d) => {
    if (d === "connect-src 'self'") return `connect-src 'self' ${origin} ${socketOrigin(origin)}`;
    return d.startsWith('img-src ') ? `${d} ${origin}` : d;
  }).join('; ');
  return { meta, header: `${meta}; frame-ancestors 'none'` };
}

/** True when `target` is `root` or inside it. */
function inside(root: string, target: string): boolean {
  const rel = relative(resolve(root), resolve(target));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function filePath(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'file:' ? fileURLToPath(u) : null;
  } catch {
    return null;
  }
}

/**
 * Which requests a renderer may make: the app's own files, in-memory data, and ledger thumbnails
 * by id (`shotfarm-asset://<id>`, whose handler picks the file). Everything else — http(s),
 * WebSockets, any other file on disk — is refused: the desktop page talks only over IPC.
 * devtools: is allowed so DevTools works in development (the menu offers it only unpackaged).
 */
export function isAllowedRequest(url: string, rendererDir: string, studio: string | null = null): boolean {
  if (studio !== null && sameOrigin(url, studio)) return true;
  if (url.startsWith('data:') || url.startsWith('blob:') || url.startsWith('devtools:')) return true;
  if (url.startsWith(`${ASSET_SCHEME}:`)) return assetIdFromUrl(url) !== null;
  const path = filePath(url);
  return path !== null && inside(rendererDir, path);
}

/** A request to the studio farm itself (its http(s) or ws(s) origin), in studio mode only. */
function sameOrigin(url: string, origin: string): boolean {
  try {
    const u = new URL(url);
    return u.origin === origin || u.origin === socketOrigin(origin);
  } catch {
    return false;
  }
}

/** The part of a WebFrameMain the sender check reads. */
export interface FrameLike {
  readonly url: string;
  readonly parent: unknown;
}

/** IPC is answered only for the top frame of the app's own page (not an iframe, not a navigated-away page). */
export function isTrustedSender(frame: FrameLike | null | undefined, indexHtml: string): boolean {
  if (!frame || frame.parent !== null) return false;
  const path = filePath(frame.url);
  if (path === null) return false;
  const a = resolve(path);
  const b = resolve(indexHtml);
  return process.platform === 'win32' || process.platform === 'darwin' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/** Applied to the default session before any window loads. */
export function hardenSession(
  ses: Session,
  rendererDir: string,
  log: (m: string) => void,
  studio: string | null = null,
): void {
  const csp = studio === null ? CSP_HEADER : studioCsp(studio).header;
  ses.setPermissionRequestHandler((_contents, permission, callback) => {
    log(`denied a permission request: ${permission}`);
    callback(false);
  });
  ses.setPermissionCheckHandler(() => false);
  ses.webRequest.onBeforeRequest((details, callback) => {
    const ok = isAllowedRequest(details.url, rendererDir, studio);
    if (!ok) log(`blocked a request to ${details.url.slice(0, 200)}`);
    callback({ cancel: !ok });
  });
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } });
  });
}

/** Applied to every web contents the app creates (app 'web-contents-created'). */
export function hardenContents(contents: WebContents, log: (m: string) => void): void {
  contents.on('will-navigate', (event, url) => {
    log(`blocked navigation to ${url.slice(0, 200)}`);
    event.preventDefault();
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    log(`blocked a new window for ${url.slice(0, 200)}`);
    return { action: 'deny' };
  });
}
