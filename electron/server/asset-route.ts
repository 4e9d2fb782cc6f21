/**
 * `GET /files/asset/:id`: streams one ledger asset. The request names an id, never a path: which
 * file that is, and whether it may be served (inside the output folder, links followed), is the
 * engine's answer to `assets.file` — the same answer the desktop's thumbnail scheme serves.
 */
import { createReadStream } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { ASSET_ID_PATTERN, ASSET_REFUSAL_STATUS } from '../../shared/domain.js';
import type { Caller } from '../../shared/people.js';
import type { Engine } from '../engine/engine.js';
import { envelope, sendError } from '../engine/hosting/http-util.js';

export async function serveAsset(
  engine: Engine,
  id: string,
  res: ServerResponse,
  headOnly: boolean,
  caller: Caller,
): Promise<void> {
  if (!ASSET_ID_PATTERN.test(id))
    return sendError(res, 404, envelope('not_found', `No asset ${id.slice(0, 100)} in the ledger.`));
  const file = await engine.call('assets.file', { id }, caller);
  if (!file.ok) {
    const status = ASSET_REFUSAL_STATUS[file.refusal];
    return sendError(res, status, envelope(status === 404 ? 'not_found' : 'bad_input', file.message));
  }
  res.writeHead(200, {
    'content-type': file.mediaType || 'application/octet-stream',
    'content-length': file.bytes,
    'cache-control': 'private, max-age=3600',
    'x-content-type-options': 'nosniff',
  });
  if (headOnly) return void res.end();
  createReadStream(file.path)
    .on('error', () => res.destroy())
    .pipe(res);
}
