/**
 * `serve --tls-cert --tls-key`: https and wss with a self-signed certificate made at test time
 * (openssl), the client trusting exactly that certificate; a clear error for an unreadable file and
 * for a key that does not belong to the certificate; and the clear-text warning off loopback.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import WebSocket from 'ws';
import { readTls, runServe } from '../../electron/cli/serve-command.js';
import { startServer } from '../../electron/server/server.js';
import { makeEngine } from '../helpers/engine.js';
import { addPerson } from '../helpers/people.js';
import { tempDirFor } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait.js';

function selfSigned(dir: string): { cert: string; key: string; otherKey: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const otherKey = join(dir, 'other-key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore', timeout: 30_000 },
  );
  execFileSync('openssl', ['genrsa', '-out', otherKey, '2048'], { stdio: 'ignore', timeout: 30_000 });
  return { cert, key, otherKey };
}

function httpsCall(url: string, ca: Buffer, token: string, method: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/call/${method}`,
      {
        method: 'POST',
        ca,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}

test('serve speaks https and wss with the given certificate; the API and the events socket work over them', async (ctx) => {
  const files = selfSigned(tempDirFor(ctx));
  const t = await makeEngine({ templates: false });
  const server = await startServer({ engine: t.engine, tls: readTls(files.cert, files.key) });
  try {
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const token = await addPerson(t.engine, 'otto', 'operator');
    const ca = readFileSync(files.cert);
    const answer = await httpsCall(server.url, ca, token, 'session.whoami');
    assert.equal(answer.status, 200, answer.body);
    assert.equal((JSON.parse(answer.body) as { result: { name: string } }).result.name, 'otto');
    const hello = await new Promise<string>((resolve, reject) => {
      const ws = new WebSocket(`${server.url.replace('https', 'wss')}/api/events`, {
        ca,
        headers: { authorization: `Bearer ${token}` },
      });
      ws.on('message', (data) => {
        ws.close();
        resolve(String(data));
      });
      ws.on('error', reject);
    });
    assert.equal(JSON.parse(hello).type, 'hello');
    // A plain-http client gets nothing useful from the TLS port.
    await assert.rejects(fetch(`${server.url.replace('https', 'http')}/api/info`));
  } finally {
    await server.close();
    await t.close();
  }
});

test('an unreadable certificate, a missing key and a key of another certificate are refused in words', async (ctx) => {
  const dir = tempDirFor(ctx);
  const files = selfSigned(dir);
  assert.throws(() => readTls(join(dir, 'missing.pem'), files.key), /--tls-cert .*missing\.pem cannot be read: ENOENT/);
  assert.throws(() => readTls(files.cert, undefined), /HTTPS needs both --tls-cert FILE and --tls-key FILE/);
  assert.throws(() => readTls(files.cert, files.otherKey), /the key does not belong to the certificate/);
  assert.throws(
    () => readTls(files.key, files.key),
    /cannot be used: they are not a PEM certificate and its private key/,
  );
  assert.ok(readTls(files.cert, files.key));
});

test('off loopback without TLS, serve warns that tokens travel in clear text; with TLS it does not', async (ctx) => {
  const files = selfSigned(tempDirFor(ctx));
  for (const tls of [false, true]) {
    const lines: string[] = [];
    let stop!: () => void;
    const stopped = new Promise<void>((r) => (stop = r));
    const serving = runServe(
      { out: (l) => void lines.push(l), err: (l) => void lines.push(l) },
      {
        listen: '0.0.0.0',
        port: '0',
        data: tempDirFor(ctx),
        static: '/nonexistent',
        ...(tls ? { tlsCert: files.cert, tlsKey: files.key } : {}),
      },
      stopped,
    );
    await waitUntil(() => lines.find((l) => l.startsWith('Press Ctrl+C')), {
      what: 'serve to start',
      timeoutMs: 10_000,
    });
    stop();
    await serving;
    const warned = lines.some((l) => /without TLS: access tokens travel in clear text/.test(l));
    assert.equal(warned, !tls, lines.join('\n'));
    if (tls)
      assert.ok(
        lines.some((l) => /^Open https:\/\//.test(l)),
        lines.join('\n'),
      );
  }
});
