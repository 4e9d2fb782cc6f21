/**
 * The contract over HTTP, for every host that answers it: `serve`'s `POST /api/call/:method`
 * (electron/server/api-route.ts) and the running farm's loopback control listener that one-shot CLI
 * commands call (engine/lock/control-listener.ts). The body is the method's input (JSON); the answer
 * is `{ok:true, result}` or `{ok:false, error}` with the envelope and the status of its code. Who
 * calls was settled by the host before (its token check); which door the call came through decides
 * what the method table lets through (hosting/reach-refusal.ts). The engine validates the input.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isApiMethod, type ApiMethod } from '../../../shared/api.js';
import { toErrorEnvelope } from '../../../shared/errors.js';
import type { Door } from '../../../shared/methods.js';
import {
  BodyTooLarge,
  decodeSegment,
  envelope,
  readBody,
  sendError,
  sendJson,
  sendLocalError,
  STATUS_FOR_CODE,
} from './http-util.js';
import { doorRefusal } from './reach-refusal.js';

export interface ContractHttpOptions {
  /** Where the call comes from: `network` for `serve`, `machine` for the control listener. */
  door: Exclude<Door, 'desktopPage'>;
  maxBodyBytes: number;
  /** Runs the validated-by-the-engine call as the host's caller (the host may adjust the input first). */
  call(method: ApiMethod, input: unknown): Promise<unknown>;
}

/** Answers one contract call whose method is `segment` (still URL-encoded, as it stood in the path). */
export async function answerContractCall(
  req: IncomingMessage,
  res: ServerResponse,
  segment: string,
  o: ContractHttpOptions,
): Promise<void> {
  // Only a remote caller has the farm host's paths withheld; a terminal on this machine reads them whole.
  const fail = o.door === 'machine' ? sendLocalError : sendError;
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
    return fail(res, 405, envelope('bad_input', 'API calls are POST requests.'));
  }
  const methodName = decodeSegment(segment) ?? segment;
  if (!isApiMethod(methodName))
    return fail(res, 404, envelope('not_found', `Unknown method ${methodName.slice(0, 80)}.`));
  // The method's own reach, before a body (up to a shot list's size) is read; its fields' reach below.
  const byMethod = doorRefusal(o.door, methodName, undefined);
  if (byMethod) return fail(res, STATUS_FOR_CODE[byMethod.code], byMethod);
  // JSON only: a cross-site form cannot send this type without a CORS preflight, which no host grants.
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
    return fail(res, 415, envelope('bad_input', 'Send the input as application/json.'));
  let text: string;
  try {
    text = await readBody(req, o.maxBodyBytes);
  } catch (err) {
    if (err instanceof BodyTooLarge)
      return fail(
        res,
        413,
        envelope('bad_input', `The request is larger than ${Math.round(o.maxBodyBytes / 1024 / 1024)} MB.`),
      );
    return fail(res, 400, envelope('bad_input', 'The request body could not be read.'));
  }
  let input: unknown;
  try {
    input = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return fail(res, 400, envelope('bad_input', 'The request body is not valid JSON.'));
  }
  // A field that narrows the method's reach is judged on what was sent.
  const byField = doorRefusal(o.door, methodName, input);
  if (byField) return fail(res, STATUS_FOR_CODE[byField.code], byField);
  try {
    sendJson(res, 200, { ok: true, result: await o.call(methodName, input) });
  } catch (err) {
    const env = toErrorEnvelope(err);
    fail(res, STATUS_FOR_CODE[env.code] ?? 500, env);
  }
}
