/**
 * `PUT /api/uploads/:sha256?name=<input name>`: one input file of a shot list imported from a
 * browser or a studio-mode desktop, streamed into <data>/uploads/ (the engine's receive-upload.ts:
 * verified against its hash, a size limit per file, nothing stored unless complete). 201 when
 * stored, 200 when the farm had it already, 413 over the limit, 400 for a bad name, hash or body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname } from 'node:path';
import { toErrorEnvelope } from '../../shared/errors.js';
import type { Engine } from '../engine/engine.js';
import { uploadLimits } from '../engine/uploads/import-uploads.js';
import { receiveUpload, UploadTooLarge } from '../engine/uploads/receive-upload.js';
import { envelope, sendError, sendJson, STATUS_FOR_CODE } from '../engine/hosting/http-util.js';

export async function handleUpload(req: IncomingMessage, res: ServerResponse, sha256: string, url: URL, engine: Engine): Promise<void> {
  if (req.method !== 'PUT') {
    res.setHeader('allow', 'PUT');
    return sendError(res, 405, envelope('bad_input', 'Uploads are PUT requests.'));
  }
  const name = url.searchParams.get('name');
  if (name === null) return sendError(res, 400, envelope('bad_input', 'Upload refused: say the input file\'s name (?name=plates/sh010.png).'));
  const length = req.headers['content-length'];
  const declared = length !== undefined && /^\d+$/.test(length) ? Number(length) : null;
  try {
    const r = await receiveUpload(req, {
      db: engine.db, clock: engine.clock, dataDir: dirname(engine.dbFile), sha256, name, declaredSize: declared, maxBytes: uploadLimits(engine.db).fileMaxBytes,
    });
    sendJson(res, r.stored ? 201 : 200, { ok: true, result: { sha256, stored: r.stored } });
  } catch (err) {
    const env = toErrorEnvelope(err);
    // The rest of a refused body is not read: close the connection after answering.
    res.setHeader('connection', 'close');
    if (!res.headersSent && res.socket && !res.socket.destroyed) sendError(res, err instanceof UploadTooLarge ? 413 : (STATUS_FOR_CODE[env.code] ?? 500), env);
    else res.destroy();
  }
}
