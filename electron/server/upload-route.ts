/**
 * `PUT /api/uploads/:sha256?name=<input name>`: one input file of a shot list imported from a
 * browser or a studio-mode desktop, streamed into <data>/uploads/ (the engine's receive-upload.ts:
 * verified against its hash, a size limit per file, nothing stored unless complete). Only a file
 * its sender announced with uploads.check, at most the size announced, within their quota
 * (upload-gate.ts). 201 when stored, 200 when the farm had it already, 413 over a limit or quota,
 * 409 not announced, 507 when the data disk is full, 400 for a bad name, hash or body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname } from 'node:path';
import { ShotfarmError, toErrorEnvelope } from '../../shared/errors.js';
import { actorName, type Caller } from '../../shared/people.js';
import type { Engine } from '../engine/engine.js';
import { sweepUploadsIfDue } from '../engine/handlers/uploads.js';
import { uploadKeeping, uploadLimits } from '../engine/uploads/import-uploads.js';
import { checkPersonQuota } from '../engine/uploads/upload-gate.js';
import { receiveUpload, UploadTooLarge } from '../engine/uploads/receive-upload.js';
import { envelope, sendError, sendJson, STATUS_FOR_CODE } from '../engine/hosting/http-util.js';

/** A file its sender did not announce with uploads.check (or announced over an hour ago). */
function notAnnounced(name: string): ShotfarmError {
  return new ShotfarmError(
    'conflict',
    `Upload refused: ${name} was not announced for an import. The farm takes the files of one shot list at a time, after uploads.check names them (within upload_import_max_mb); nothing was stored.`,
  );
}

export async function handleUpload(
  req: IncomingMessage,
  res: ServerResponse,
  sha256: string,
  url: URL,
  engine: Engine,
  caller: Caller,
): Promise<void> {
  if (req.method !== 'PUT') {
    res.setHeader('allow', 'PUT');
    return sendError(res, 405, envelope('bad_input', 'Uploads are PUT requests.'));
  }
  const name = url.searchParams.get('name');
  if (name === null)
    return sendError(
      res,
      400,
      envelope('bad_input', "Upload refused: say the input file's name (?name=plates/sh010.png)."),
    );
  const length = req.headers['content-length'];
  const declared = length !== undefined && /^\d+$/.test(length) ? Number(length) : null;
  const sender = actorName(caller);
  try {
    sweepUploadsIfDue(engine);
    // Announced by this sender, at most the size announced, within their quota (uploads/upload-gate.ts).
    const admit = (): number => {
      const announced = engine.uploadGate.announced(sender, sha256, engine.clock.now());
      if (announced === null) throw notAnnounced(name);
      checkPersonQuota(engine.db, sender, announced, uploadKeeping(engine.settings).personMaxBytes);
      return announced;
    };
    const r = await receiveUpload(req, {
      db: engine.db,
      clock: engine.clock,
      dataDir: dirname(engine.dbFile),
      sha256,
      name,
      declaredSize: declared,
      maxBytes: uploadLimits(engine.settings).fileMaxBytes,
      sender,
      admit,
    });
    if (r.stored) engine.uploadGate.received(sender, sha256);
    sendJson(res, r.stored ? 201 : 200, { ok: true, result: { sha256, stored: r.stored } });
  } catch (err) {
    const env = toErrorEnvelope(err);
    // The rest of a refused body is not read: close the connection after answering.
    res.setHeader('connection', 'close');
    if (!res.headersSent && res.socket && !res.socket.destroyed)
      sendError(res, err instanceof UploadTooLarge ? 413 : (STATUS_FOR_CODE[env.code] ?? 500), env);
    else res.destroy();
  }
}
