/**
 * `GET /files/asset/:id`: streams one ledger asset. The id is looked up in the store; the path comes
 * from the ledger row, never from the request, and must still lie inside the output folder — a
 * request can never name a file.
 */
import { createReadStream, statSync } from 'node:fs';
import { realpathSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { relative, isAbsolute } from 'node:path';
import type { Engine } from '../engine/engine.js';
import { assetById } from '../engine/store/asset-store.js';
import { envelope, sendError } from './http-util.js';

const ASSET_ID = /^[A-Za-z0-9_-]{1,100}$/;

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

export function serveAsset(engine: Engine, id: string, res: ServerResponse, headOnly: boolean): void {
  const asset = ASSET_ID.test(id) ? assetById(engine.db, id) : null;
  if (!asset) return sendError(res, 404, envelope('not_found', `No asset ${id.slice(0, 100)} in the ledger.`));
  let real: string;
  let size: number;
  try {
    real = realpathSync(asset.path);
    if (!inside(realpathSync(engine.outputRoot), real)) {
      return sendError(res, 403, envelope('bad_input', 'This asset lies outside the output folder and is not served.'));
    }
    size = statSync(real).size;
  } catch {
    return sendError(res, 404, envelope('not_found', `The file of asset ${asset.fileName} is missing from disk.`));
  }
  res.writeHead(200, {
    'content-type': asset.mediaType || 'application/octet-stream',
    'content-length': size,
    'cache-control': 'private, max-age=3600',
    'x-content-type-options': 'nosniff',
  });
  if (headOnly) return void res.end();
  createReadStream(real)
    .on('error', () => res.destroy())
    .pipe(res);
}
