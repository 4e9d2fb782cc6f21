/**
 * How a one-shot CLI command reaches the engine that holds the data folder's farm: a loopback HTTP
 * listener on a random port, started by the lock holder whatever host it runs in (the desktop
 * app's engine process and `shotfarm run` have no HTTP server of their own; `serve`'s API refuses
 * the local-only methods and rewrites import folders, which a terminal on this machine may use).
 * Its address and a random token are in the lock record (engine.lock.json, this user's only), so
 * whoever can call it could as well have opened the database itself.
 *
 *   POST /call/<method>   Authorization: Bearer <token>, the method's input as JSON
 *                         → 200 {ok:true,result} | {ok:false,error}: the contract's answer
 *
 * Pages cannot call it: a request with an Origin header is refused, and JSON only (a form cannot
 * send it without a preflight, never granted). It never keeps a process alive on its own.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorEnvelope, toErrorEnvelope, type ErrorEnvelope } from '../../../shared/errors.js';

/** A shot list may be 32 MB (intake/text-check.ts), more once escaped into JSON. */
const MAX_BODY_BYTES = 96 * 1024 * 1024;

export interface ControlListener {
  url: string;
  token: string;
  close(): Promise<void>;
}

export type ControlCall = (method: string, input: unknown) => Promise<unknown>;

function answer(res: ServerResponse, status: number, body: { ok: true; result: unknown } | { ok: false; error: ErrorEnvelope }): void {
  if (res.headersSent || res.destroyed) return;
  let text: string;
  try {
    text = JSON.stringify(body);
  } catch (err) {
    status = 500;
    text = JSON.stringify({ ok: false, error: errorEnvelope('internal', `The answer could not be sent: ${(err as Error).message}`) });
  }
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(text);
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on('data', (c: Buffer) => {
      bytes += c.byteLength;
      if (bytes > MAX_BODY_BYTES) {
        reject(Object.assign(new Error('too large'), { status: 413 }));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('error', reject);
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text.trim() === '' ? {} : (JSON.parse(text) as unknown));
      } catch {
        reject(Object.assign(new Error('not JSON'), { status: 400 }));
      }
    });
  });
}

function tokenMatches(header: string | undefined, token: Buffer): boolean {
  const given = Buffer.from(/^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '');
  return given.length === token.length && timingSafeEqual(given, token);
}

export async function startControlListener(call: ControlCall, log: (m: string) => void): Promise<ControlListener> {
  const token = randomBytes(24).toString('base64url');
  const expected = Buffer.from(token);
  const server = createServer((req, res) => {
    req.on('error', () => undefined); // a client that hangs up mid-request costs only its request
    res.on('error', () => undefined);
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Refused before the engine is asked: a missing token and a page are said as such; the rest is bad input.
    const refuse = (status: number, message: string): void =>
      answer(res, status, { ok: false, error: errorEnvelope(status === 401 ? 'unauthorized' : status === 403 ? 'forbidden' : 'bad_input', message) });
    if (req.headers.origin !== undefined) return refuse(403, 'The control address is for shotfarm commands on this machine, not for pages.');
    if (!tokenMatches(req.headers.authorization, expected)) return refuse(401, 'A token from the lock record is required.');
    const m = /^\/call\/([A-Za-z.]{1,100})$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !m) return refuse(404, 'Use POST /call/<method>.');
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return refuse(415, 'Send the input as application/json.');
    let input: unknown;
    try {
      input = await readJson(req);
    } catch (err) {
      const status = (err as { status?: number }).status ?? 400;
      return refuse(status, status === 413 ? 'The request is too large.' : 'The request body is not valid JSON.');
    }
    try {
      answer(res, 200, { ok: true, result: await call(m[1] as string, input) });
    } catch (err) {
      answer(res, 200, { ok: false, error: toErrorEnvelope(err) });
    }
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
