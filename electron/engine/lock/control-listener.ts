/**
 * How a one-shot CLI command reaches the engine that holds the data folder's farm: a loopback HTTP
 * listener on a random port, started by the lock holder whatever host it runs in (the desktop
 * app's engine process and `shotfarm run` have no HTTP server of their own; `serve`'s API refuses
 * the local-only methods and rewrites import folders, which a terminal on this machine may use).
 * Its address and a random token are in the lock record (engine.lock.json, this user's only), so
 * whoever can call it could as well have opened the database itself.
 *
 *   POST /call/<method>   Authorization: Bearer <token>, the method's input as JSON
 *                         → {ok:true,result} | {ok:false,error}: the contract's answer, with the
 *                           status of its code (engine/hosting/contract-http.ts, as `serve` answers)
 *
 * Pages cannot call it: a request with an Origin header is refused, and JSON only (a form cannot
 * send it without a preflight, never granted). It never keeps a process alive on its own.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiMethod } from '../../../shared/api.js';
import { answerContractCall } from '../hosting/contract-http.js';
import { envelope, presentedToken, sameSecret, sendError } from '../hosting/http-util.js';

/** A shot list may be 32 MB (intake/text-check.ts), more once escaped into JSON. */
const MAX_BODY_BYTES = 96 * 1024 * 1024;

export interface ControlListener {
  url: string;
  token: string;
  close(): Promise<void>;
}

export type ControlCall = (method: ApiMethod, input: unknown) => Promise<unknown>;

export async function startControlListener(call: ControlCall, log: (m: string) => void): Promise<ControlListener> {
  const token = randomBytes(24).toString('base64url');
  const server = createServer((req, res) => {
    req.on('error', () => undefined); // a client that hangs up mid-request costs only its request
    res.on('error', () => undefined);
    handle(req, res).catch(() => {
      if (!res.headersSent)
        sendError(res, 500, envelope('internal', 'The control listener failed to answer this request.'));
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Refused before the engine is asked: a page, and a caller without the record's token, are said as such.
    if (req.headers.origin !== undefined) {
      return sendError(
        res,
        403,
        envelope('forbidden', 'The control address is for shotfarm commands on this machine, not for pages.'),
      );
    }
    const given = presentedToken(req);
    if (!given || !sameSecret(given, token))
      return sendError(res, 401, envelope('unauthorized', 'A token from the lock record is required.'));
    const m = /^\/call\/([^/?#]+)$/.exec(req.url ?? '');
    if (!m) return sendError(res, 404, envelope('not_found', 'Use POST /call/<method>.'));
    // This machine's door: every method is open here (the caller could as well have opened the database).
    await answerContractCall(req, res, m[1] ?? '', { door: 'machine', maxBodyBytes: MAX_BODY_BYTES, call });
  }

  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => log(`the control listener failed: ${err.message}`));
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
