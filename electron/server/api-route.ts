/**
 * `POST /api/call/:method`: the contract over HTTP (engine/hosting/contract-http.ts) at the network
 * door, as the person the request's token names. Server-side paths are the server's choice, not the
 * page's: exports are confined to the export folder, imports get the server's base folder.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiMethod } from '../../shared/api.js';
import type { Caller } from '../../shared/people.js';
import type { Engine } from '../engine/engine.js';
import { answerContractCall } from '../engine/hosting/contract-http.js';
import { confineExportInput } from '../engine/hosting/export-path.js';

export interface ApiRouteOptions {
  engine: Engine;
  exportDir: string;
  /** Where relative input files of an imported shot list are looked up (the browser cannot say); null: uploads only. */
  importBaseDir: string | null;
  maxBodyBytes: number;
  /** Who calls: a person (their token), or the solo operator. */
  caller: Caller;
}

function confine(method: ApiMethod, input: unknown, o: ApiRouteOptions): unknown {
  if (method === 'import.preview' && input && typeof input === 'object')
    return { ...input, baseDir: o.importBaseDir ?? undefined };
  return confineExportInput(method, input, o.exportDir);
}

export function handleApiCall(
  req: IncomingMessage,
  res: ServerResponse,
  segment: string,
  o: ApiRouteOptions,
): Promise<void> {
  return answerContractCall(req, res, segment, {
    door: 'network',
    maxBodyBytes: o.maxBodyBytes,
    call: (method, input) => o.engine.call(method, confine(method, input, o), o.caller),
  });
}
