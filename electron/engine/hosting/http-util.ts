/**
 * Small HTTP helpers for the hosts that answer over HTTP (`serve`, the control listener): JSON
 * answers, bounded body reading, status mapping, and the token a request presents.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorEnvelope, type ErrorCode, type ErrorEnvelope } from '../../../shared/errors.js';
import { noteWithheld, remoteEnvelope } from './server-paths.js';

export { errorEnvelope as envelope } from '../../../shared/errors.js';

/** HTTP status for each envelope code, so proxies and curl users see a fitting status too. */
export const STATUS_FOR_CODE: Readonly<Record<ErrorCode, number>> = {
  bad_input: 400,
  not_found: 404,
  conflict: 409,
  unavailable: 503,
  storage: 507,
  internal: 500,
  unauthorized: 401,
  forbidden: 403,
};

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  let text: string;
  try {
    text = JSON.stringify(body);
  } catch (err) {
    // An answer JSON cannot carry (a BigInt, a cycle) is the engine's fault, said as such.
    status = 500;
    text = JSON.stringify({
      ok: false,
      error: errorEnvelope('internal', `The answer could not be sent: ${(err as Error).message}`),
    });
  }
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

/** An error answer for a caller on this machine (the control listener): its paths are the caller's own, so they stay. */
export function sendLocalError(res: ServerResponse, status: number, error: ErrorEnvelope): void {
  sendJson(res, status, { ok: false, error });
}

/** An error answer for a remote caller; the farm host's paths are withheld from it (server-paths.ts) and kept for the local log. */
export function sendError(res: ServerResponse, status: number, error: ErrorEnvelope): void {
  const shown = remoteEnvelope(error);
  if (shown !== error) noteWithheld(res, error.message);
  sendJson(res, status, { ok: false, error: shown });
}

export class BodyTooLarge extends Error {}

/** Reads the whole body, refusing more than `maxBytes` (a shot list is big, but not unbounded). */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBytes) {
      reject(new BodyTooLarge());
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        reject(new BodyTooLarge());
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A path segment of the URL, decoded; null for a broken %-escape (`%zz`), which is the caller's 400, not our 500. */
export function decodeSegment(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/**
 * The token a request presents in `Authorization: Bearer …`. Never from the address: a token in a
 * URL is kept in histories, proxy logs and copied links (`serve` refuses it: people-access.ts).
 */
export function presentedToken(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) return auth.slice(7).trim() || null;
  return null;
}

/** Compares a presented secret with the expected one in constant time. */
export function sameSecret(given: string, expected: string): boolean {
  const x = Buffer.from(given);
  const y = Buffer.from(expected);
  return x.length === y.length && timingSafeEqual(x, y);
}
