/**
 * `shotfarm-asset://<id>`: the desktop page's thumbnails. The page names a ledger asset by id, never
 * a path: which file that is, and whether it may be served (a regular file inside the output
 * folder, links followed), is the engine's answer to `assets.file` — the same answer the headless
 * server's /files/asset/:id serves. This host adds one rule of its own: images only.
 *
 * URL → id is a pure function, and the handler takes a fetch `Request` and answers a `Response`,
 * so both are tested in Node; main.ts only registers the handler with Electron.
 */
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { ASSET_ID_PATTERN, ASSET_REFUSAL_STATUS, type AssetFileAnswer } from '../../shared/domain.js';
import type { CallTarget } from './ipc-policy.js';

export const ASSET_SCHEME = 'shotfarm-asset';

/**
 * Registered before `ready` (protocol.registerSchemesAsPrivileged). `standard` gives the URLs a
 * host (the id) and an origin; `secure` keeps them from counting as mixed content. No fetch, no
 * CORS, no CSP bypass, no service workers: an <img> is the only thing meant to load them.
 */
export const ASSET_SCHEME_PRIVILEGES = {
  scheme: ASSET_SCHEME,
  privileges: {
    standard: true,
    secure: true,
    supportFetchAPI: false,
    corsEnabled: false,
    bypassCSP: false,
    allowServiceWorkers: false,
    stream: true,
  },
} as const;

/**
 * The asset id a `shotfarm-asset:` URL names, or null: exactly `shotfarm-asset://<id>` (a trailing
 * `/` allowed, since a standard scheme adds one), no path, query, credentials or port.
 */
export function assetIdFromUrl(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== `${ASSET_SCHEME}:`) return null;
  if (u.username || u.password || u.port || u.search || u.hash) return null;
  if (u.pathname !== '' && u.pathname !== '/') return null;
  const id = u.hostname.toLowerCase();
  return ASSET_ID_PATTERN.test(id) ? id : null;
}

/** What main asks of the engine: the contract's call (the engine host). */
export type AssetAnswerSource = Pick<CallTarget, 'call'>;

/** The engine's `assets.file` answer, checked: it crosses a process boundary. */
function asFileAnswer(v: unknown): AssetFileAnswer | null {
  const a = v as Partial<Record<string, unknown>> | null;
  if (!a || typeof a !== 'object') return null;
  if (a.ok === true && typeof a.path === 'string' && typeof a.mediaType === 'string' && typeof a.bytes === 'number')
    return a as AssetFileAnswer;
  if (
    a.ok === false &&
    typeof a.refusal === 'string' &&
    a.refusal in ASSET_REFUSAL_STATUS &&
    typeof a.message === 'string'
  )
    return a as AssetFileAnswer;
  return null;
}

/** The app shows images only: anything else in the ledger (a video, a text file) is not loaded into the page. */
const IMAGE_TYPE = /^image\/[a-z0-9.+-]+$/i;

/** The part of a fetch Request the handler reads (Electron passes a real one). */
export interface AssetRequest {
  url: string;
  method: string;
}

function refusal(status: number, message: string): Response {
  return new Response(message, {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
  });
}

/** The `protocol.handle` handler: id → the engine's `assets.file` answer → images only → the file's bytes. */
export function createAssetHandler(o: {
  engine: AssetAnswerSource;
  log?: (m: string) => void;
}): (request: AssetRequest) => Promise<Response> {
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return refusal(405, 'Only GET.');
    const id = assetIdFromUrl(request.url);
    if (!id) return refusal(400, 'Not an asset address.');
    let file: AssetFileAnswer | null;
    try {
      file = asFileAnswer(await o.engine.call('assets.file', { id }));
    } catch (err) {
      o.log?.(`could not look asset ${id} up: ${(err as Error).message}`);
      return refusal(503, 'The engine did not answer.');
    }
    if (!file) return refusal(502, 'The engine answered in an unexpected shape.');
    if (!file.ok) {
      if (file.refusal === 'outside') o.log?.(`refused asset ${id}: ${file.message}`);
      return refusal(ASSET_REFUSAL_STATUS[file.refusal], file.message);
    }
    if (!IMAGE_TYPE.test(file.mediaType)) return refusal(415, 'Only images are shown in the app.');
    const headers = {
      'content-type': file.mediaType.toLowerCase(),
      'content-length': String(file.bytes),
      'cache-control': 'private, max-age=3600',
      'x-content-type-options': 'nosniff',
      // Nothing served here may run or embed anything, even if it is opened some other way.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    };
    if (request.method === 'HEAD') return new Response(null, { status: 200, headers });
    const body = Readable.toWeb(createReadStream(file.path)) as unknown as ReadableStream<Uint8Array>;
    return new Response(body, { status: 200, headers });
  };
}
