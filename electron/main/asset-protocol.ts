/**
 * `shotfarm-asset://<id>`: the desktop page's thumbnails. The page names a ledger asset by id, never
 * a path: the path comes from the engine's own answer for that id (`assets.list`, through the
 * contract like every other call), and the file is served only when it resolves — symlinks
 * followed — to a file inside the output folder, and only as an image.
 *
 * The decisions (URL → id, asset → file) are pure functions tested in Node, and so is the handler
 * (it takes a fetch `Request` and answers a `Response`); main.ts only registers it with Electron.
 */
import { createReadStream, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { Readable } from 'node:stream';
import type { ApiMethod } from '../../shared/api.js';
import type { CallTarget } from './ipc-policy.js';

export const ASSET_SCHEME = 'shotfarm-asset';

/**
 * Registered before `ready` (protocol.registerSchemesAsPrivileged). `standard` gives the URLs a
 * host (the id) and an origin; `secure` keeps them from counting as mixed content. No fetch, no
 * CORS, no CSP bypass, no service workers: an <img> is the only thing meant to load them.
 */
export const ASSET_SCHEME_PRIVILEGES = {
  scheme: ASSET_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: false, corsEnabled: false, bypassCSP: false, allowServiceWorkers: false, stream: true },
} as const;

/** Ids as the ledger makes them (UUIDs); the same rule as the headless server's /files/asset/:id. */
const ASSET_ID = /^[a-z0-9_-]{1,100}$/;

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
  return ASSET_ID.test(id) ? id : null;
}

/** What the handler needs of a ledger row. */
export interface AssetRecord {
  id: string;
  path: string;
  mediaType: string;
}

/** The file system calls the policy makes (real ones by default; tests may pass others). */
export interface AssetFs {
  realpath(path: string): string;
  stat(path: string): { isFile(): boolean; size: number };
}

const nodeFs: AssetFs = { realpath: (p) => realpathSync(p), stat: (p) => statSync(p) };

export type AssetFileDecision =
  | { ok: true; file: string; mediaType: string; size: number }
  | { ok: false; status: 403 | 404 | 415; message: string };

/** True when `path` is strictly inside `root` (not the root itself). Both must be resolved already. */
function strictlyInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * May this asset's file be served? Only an image whose real path (symlinks resolved) is a regular
 * file inside the real output folder. The ledger row is the engine's, but the file on disk may have
 * been replaced by a link since: the check is made on every request.
 */
export function decideAssetFile(asset: AssetRecord | null, outputRoot: string, fs: AssetFs = nodeFs): AssetFileDecision {
  if (!asset) return { ok: false, status: 404, message: 'No such asset in the ledger.' };
  if (!/^image\/[a-z0-9.+-]+$/i.test(asset.mediaType)) return { ok: false, status: 415, message: 'Only images are shown in the app.' };
  if (!isAbsolute(asset.path) || asset.path.includes('\0')) return { ok: false, status: 403, message: 'The asset has no usable path.' };
  let root: string;
  let real: string;
  try {
    root = fs.realpath(outputRoot);
    real = fs.realpath(asset.path);
  } catch {
    return { ok: false, status: 404, message: 'The asset file is missing from disk.' };
  }
  if (!strictlyInside(root, real)) return { ok: false, status: 403, message: 'The asset lies outside the output folder and is not served.' };
  try {
    const s = fs.stat(real);
    if (!s.isFile()) return { ok: false, status: 404, message: 'The asset is not a file.' };
    return { ok: true, file: real, mediaType: asset.mediaType.toLowerCase(), size: s.size };
  } catch {
    return { ok: false, status: 404, message: 'The asset file is missing from disk.' };
  }
}

function isAssetRow(v: unknown): v is AssetRecord {
  const r = v as Partial<AssetRecord> | null;
  return !!r && typeof r === 'object' && typeof r.id === 'string' && typeof r.path === 'string' && typeof r.mediaType === 'string';
}

export interface AssetDirectoryOptions {
  /** Ids remembered at most (oldest forgotten first); default 50,000. */
  maxEntries?: number;
  /** Rows read per `assets.list` page when looking an unknown id up; default 2,000. */
  pageSize?: number;
  /** Rows read at most in one look-up; default 50,000. */
  maxScan?: number;
  /** A look-up is not repeated sooner than this after the previous one; default 5 s. */
  rescanAfterMs?: number;
  now?: () => number;
}

/**
 * Ledger ids → files, learnt from the engine's `assets.list` answers. The page asks for thumbnails
 * of assets it was just given by `assets.list`, so `observe` (fed every answer that passes through
 * the IPC handler) knows them; an id it has not seen is looked up by reading `assets.list` pages —
 * at most one look-up at a time, and not more often than `rescanAfterMs`, so a page asking for
 * made-up ids cannot keep the engine busy.
 */
export class AssetDirectory {
  private readonly known = new Map<string, AssetRecord>();
  private readonly o: Required<Omit<AssetDirectoryOptions, 'now'>> & { now: () => number };
  private scanning: Promise<void> | null = null;
  private lastScan = Number.NEGATIVE_INFINITY;

  constructor(private readonly host: CallTarget, opts: AssetDirectoryOptions = {}) {
    this.o = { maxEntries: 50_000, pageSize: 2_000, maxScan: 50_000, rescanAfterMs: 5_000, now: Date.now, ...opts };
  }

  get size(): number {
    return this.known.size;
  }

  /** Learns the rows of an `assets.list` answer; other methods' answers are ignored. */
  observe(method: ApiMethod, result: unknown): void {
    if (method !== 'assets.list') return;
    const rows = (result as { rows?: unknown } | null)?.rows;
    if (!Array.isArray(rows)) return;
    for (const r of rows) if (isAssetRow(r)) this.remember(r);
  }

  /** A call target that forwards to `target` and observes its answers (the IPC handler's host). */
  observing(target: CallTarget): CallTarget {
    return {
      call: async (method, input) => {
        const result = await target.call(method, input);
        this.observe(method, result);
        return result;
      },
    };
  }

  async find(id: string): Promise<AssetRecord | null> {
    const key = id.toLowerCase();
    const hit = this.known.get(key);
    if (hit) return hit;
    if (!this.scanning && this.o.now() - this.lastScan >= this.o.rescanAfterMs) {
      this.lastScan = this.o.now();
      this.scanning = this.scan().finally(() => {
        this.scanning = null;
      });
    }
    if (this.scanning) await this.scanning.catch(() => undefined);
    return this.known.get(key) ?? null;
  }

  private remember(r: AssetRecord): void {
    const key = r.id.toLowerCase();
    this.known.delete(key); // re-inserted as the newest
    this.known.set(key, { id: r.id, path: r.path, mediaType: r.mediaType });
    while (this.known.size > this.o.maxEntries) {
      const oldest = this.known.keys().next().value;
      if (oldest === undefined) break;
      this.known.delete(oldest);
    }
  }

  private async scan(): Promise<void> {
    for (let offset = 0; offset < this.o.maxScan; offset += this.o.pageSize) {
      const page = (await this.host.call('assets.list', { offset, limit: this.o.pageSize })) as { rows?: unknown[]; total?: number };
      this.observe('assets.list', page);
      const rows = Array.isArray(page?.rows) ? page.rows.length : 0;
      if (rows < this.o.pageSize) return;
    }
  }
}

/** The part of a fetch Request the handler reads (Electron passes a real one). */
export interface AssetRequest {
  url: string;
  method: string;
}

function refusal(status: number, message: string): Response {
  return new Response(message, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' } });
}

/** The `protocol.handle` handler: id → ledger row → policy → the file's bytes. */
export function createAssetHandler(o: { directory: Pick<AssetDirectory, 'find'>; outputRoot: string; fs?: AssetFs; log?: (m: string) => void }): (request: AssetRequest) => Promise<Response> {
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return refusal(405, 'Only GET.');
    const id = assetIdFromUrl(request.url);
    if (!id) return refusal(400, 'Not an asset address.');
    let asset: AssetRecord | null;
    try {
      asset = await o.directory.find(id);
    } catch (err) {
      o.log?.(`could not look asset ${id} up: ${(err as Error).message}`);
      return refusal(503, 'The engine did not answer.');
    }
    const d = decideAssetFile(asset, o.outputRoot, o.fs);
    if (!d.ok) {
      if (d.status === 403) o.log?.(`refused asset ${id}: ${d.message}`);
      return refusal(d.status, d.message);
    }
    const headers = {
      'content-type': d.mediaType,
      'content-length': String(d.size),
      'cache-control': 'private, max-age=3600',
      'x-content-type-options': 'nosniff',
      // Nothing served here may run or embed anything, even if it is opened some other way.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    };
    if (request.method === 'HEAD') return new Response(null, { status: 200, headers });
    const body = Readable.toWeb(createReadStream(d.file)) as unknown as ReadableStream<Uint8Array>;
    return new Response(body, { status: 200, headers });
  };
}
