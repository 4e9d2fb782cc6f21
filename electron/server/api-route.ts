/**
 * `POST /api/call/:method`: the contract over HTTP. The body is the method's input (JSON); the
 * answer is `{ok:true, result}` or `{ok:false, error}` with the envelope and a fitting status.
 * The engine validates the input against `API_INPUTS` (the single entry for every transport).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isApiMethod, type ApiMethod } from '../../shared/api.js';
import type { Caller } from '../../shared/people.js';
import { toErrorEnvelope } from '../../shared/errors.js';
import type { Engine } from '../engine/engine.js';
import { confineExportInput } from '../engine/hosting/export-path.js';
import { apiBaseRefusal } from '../engine/pools/runpod/api-base.js';
import { localOnlyRefusal } from '../engine/hosting/local-only.js';
import { BodyTooLarge, envelope, readBody, sendError, sendJson, STATUS_FOR_CODE } from './http-util.js';

export interface ApiRouteOptions {
  engine: Engine;
  exportDir: string;
  /** Where relative input files of an imported shot list are looked up (the browser cannot say); null: uploads only. */
  importBaseDir: string | null;
  maxBodyBytes: number;
  /** Who calls: a person (their token), or the solo operator. */
  caller: Caller;
}

/** Server-side paths are the server's choice, not the page's: exports are confined, imports get the base folder. */
function confine(method: ApiMethod, input: unknown, o: ApiRouteOptions): unknown {
  if (method === 'import.preview' && input && typeof input === 'object') return { ...input, baseDir: o.importBaseDir ?? undefined };
  return confineExportInput(method, input, o.exportDir);
}

export async function handleApiCall(req: IncomingMessage, res: ServerResponse, methodName: string, o: ApiRouteOptions): Promise<void> {
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
    return sendError(res, 405, envelope('bad_input', 'API calls are POST requests.'));
  }
  if (!isApiMethod(methodName)) return sendError(res, 404, envelope('not_found', `Unknown method ${methodName.slice(0, 80)}.`));
  const refused = localOnlyRefusal(methodName);
  if (refused) return sendError(res, 403, refused);
  // JSON only: a cross-site form cannot send this type without a CORS preflight, which we never grant.
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) return sendError(res, 415, envelope('bad_input', 'Send the input as application/json.'));
  let text: string;
  try {
    text = await readBody(req, o.maxBodyBytes);
  } catch (err) {
    if (err instanceof BodyTooLarge) return sendError(res, 413, envelope('bad_input', `The request is larger than ${Math.round(o.maxBodyBytes / 1024 / 1024)} MB.`));
    return sendError(res, 400, envelope('bad_input', 'The request body could not be read.'));
  }
  let input: unknown;
  try {
    input = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return sendError(res, 400, envelope('bad_input', 'The request body is not valid JSON.'));
  }
  // The RunPod key goes where the API base points: only the farm host chooses it (cloud/api-base.ts).
  const baseRefused = apiBaseRefusal(methodName, input);
  if (baseRefused) return sendError(res, 403, baseRefused);
  try {
    const result = await o.engine.call(methodName, confine(methodName, input, o), o.caller);
    sendJson(res, 200, { ok: true, result });
  } catch (err) {
    const env = toErrorEnvelope(err);
    sendError(res, STATUS_FOR_CODE[env.code] ?? 500, env);
  }
}
