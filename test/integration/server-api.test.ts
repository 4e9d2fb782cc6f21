/**
 * What only the HTTP transport has: methods and content types, export and import paths chosen by
 * the server, /api/info, the app shell and its files. A call, bad input, unknown methods and the
 * local-only refusal are the transport suite's cases (test/contract/transports.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../electron/server/server.js';
import { makeEngine, type TestEngine } from '../helpers/engine.js';
import { makeTempDir } from '../helpers/temp-dir.js';

async function withServer(fn: (s: RunningServer, t: TestEngine, staticDir: string) => Promise<void>): Promise<void> {
  const t = await makeEngine();
  const web = makeTempDir('shotfarm-static-');
  mkdirSync(join(web.path, 'assets'));
  writeFileSync(join(web.path, 'index.html'), '<!doctype html><title>Shotfarm</title>');
  writeFileSync(join(web.path, 'assets', 'app.js'), 'console.log(1)');
  const server = await startServer({ engine: t.engine, staticDir: web.path, demoLabel: 'Demo farm' });
  try {
    await fn(server, t, web.path);
  } finally {
    await server.close();
    await t.close();
    web.cleanup();
  }
}

async function call(s: RunningServer, method: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}/api/call/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      ok: boolean;
      result?: unknown;
      error?: { code: string; message: string; retryable: boolean };
    },
  };
}

/** A raw request, for headers fetch will not let us forge (Host). */
function raw(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('non-POST is 405, non-JSON bodies 400 and other content types 415', async () => {
  await withServer(async (s) => {
    assert.equal((await fetch(`${s.url}/api/call/farm.status`)).status, 405);
    const broken = await call(s, 'farm.status', '{"oops"');
    assert.equal(broken.status, 400);
    assert.match(broken.body.error?.message ?? '', /not valid JSON/);
    const form = await fetch(`${s.url}/api/call/farm.status`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    assert.equal(form.status, 415);
  });
});

test('engine errors keep their code: not_found is 404, conflict is 409', async () => {
  await withServer(async (s) => {
    const missing = await call(s, 'jobs.get', { id: '00000000-0000-4000-8000-000000000000' });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error?.code, 'not_found');
    await call(s, 'instances.add', { name: 'gpu-01', url: 'http://127.0.0.1:9' });
    const dup = await call(s, 'instances.add', { name: 'gpu-01', url: 'http://127.0.0.1:10' });
    assert.equal(dup.status, 409);
    assert.match(dup.body.error?.message ?? '', /already named "gpu-01"/);
  });
});

test('exports are written inside the server export folder; a path escaping it is refused', async () => {
  await withServer(async (s, t) => {
    const ok = await call(s, 'export.runlog', { path: 'runlog.csv' });
    assert.equal(ok.status, 200);
    const written = (ok.body.result as { path: string }).path;
    assert.equal(written, join(t.dir, 'exports', 'runlog.csv'));
    assert.ok(existsSync(written));
    for (const path of ['../escape.csv', join(tmpdir(), 'escape.csv'), 'sub/../../escape.csv', 'not-csv.sh']) {
      const bad = await call(s, 'export.ledger', { path });
      assert.equal(bad.status, 400, path);
      assert.equal(bad.body.error?.code, 'bad_input');
    }
    assert.equal(existsSync(join(t.dir, 'escape.csv')), false);
  });
});

test('GET /api/info names the demo label; the app shell falls back to index.html, a missing asset is 404', async () => {
  await withServer(async (s, _t, staticDir) => {
    const info = (await (await fetch(`${s.url}/api/info`)).json()) as { demoLabel: string; tokenRequired: boolean };
    assert.equal(info.demoLabel, 'Demo farm');
    assert.equal(info.tokenRequired, false);
    const page = await fetch(`${s.url}/timeline`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.equal(await page.text(), readFileSync(join(staticDir, 'index.html'), 'utf8'));
    assert.equal((await fetch(`${s.url}/assets/app.js`)).status, 200);
    assert.equal((await fetch(`${s.url}/assets/missing.js`)).status, 404);
    const traversal = await raw(s.url, '/..%2f..%2fpackage.json', { host: new URL(s.url).host });
    assert.notEqual(traversal.body.includes('"name"'), true, 'no file outside the static folder is served');
  });
});

test('storage.get is open over HTTP: the S3 view never holds a secret (storage.set is local-only)', async () => {
  await withServer(async (s) => {
    const shown = await call(s, 'storage.get', {});
    assert.equal(shown.status, 200);
    assert.deepEqual(shown.body, { ok: true, result: { s3: null } });
  });
});
