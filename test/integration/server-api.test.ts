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
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { ok: boolean; result?: unknown; error?: { code: string; message: string; retryable: boolean } } };
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

test('a valid call over HTTP answers {ok:true, result} with the engine result', async () => {
  await withServer(async (s) => {
    const r = await call(s, 'templates.list', {});
    assert.equal(r.status, 200);
    assert.equal(r.body.ok, true);
    assert.deepEqual((r.body.result as { name: string }[]).map((t) => t.name).sort(), ['keyframe-img2img', 'motion-i2v']);
  });
});

test('invalid input is refused with the bad_input envelope and status 400, and changes nothing', async () => {
  await withServer(async (s, t) => {
    const r = await call(s, 'jobs.hold', { ids: ['not-a-uuid'] });
    assert.equal(r.status, 400);
    assert.equal(r.body.ok, false);
    assert.equal(r.body.error?.code, 'bad_input');
    assert.match(r.body.error?.message ?? '', /Invalid input for jobs\.hold/);
    assert.equal(r.body.error?.retryable, false);
    const extra = await call(s, 'farm.status', { sneaky: 1 });
    assert.equal(extra.status, 400, 'strict schemas refuse unknown fields');
    const before = t.engine.db.prepare('SELECT COUNT(*) AS n FROM instances').get() as { n: number };
    const bad = await call(s, 'instances.add', { name: 'gpu-01', url: 'gpu-01:8188' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error?.message ?? '', /http:\/\/ or https:\/\/ URL/);
    assert.deepEqual(t.engine.db.prepare('SELECT COUNT(*) AS n FROM instances').get(), before);
  });
});

test('unknown methods are 404, non-POST is 405, non-JSON bodies 400 and other content types 415', async () => {
  await withServer(async (s) => {
    assert.equal((await call(s, 'jobs.dropTable', {})).status, 404);
    assert.equal((await call(s, 'constructor', {})).status, 404, 'prototype names are not methods');
    assert.equal((await fetch(`${s.url}/api/call/farm.status`)).status, 405);
    const broken = await call(s, 'farm.status', '{"oops"');
    assert.equal(broken.status, 400);
    assert.match(broken.body.error?.message ?? '', /not valid JSON/);
    const form = await fetch(`${s.url}/api/call/farm.status`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
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

test('every local-only method is refused over HTTP: hooks (programs to run, webhook tokens), S3 secrets, freezing to any path', async () => {
  const t = await makeEngine({ templates: false });
  const server = await startServer({ engine: t.engine, port: 0 });
  try {
    for (const method of ['hooks.list', 'hooks.add', 'hooks.remove', 'hooks.deliveries', 'storage.set', 'release.freeze']) {
      const res = await fetch(new URL(`/api/call/${method}`, server.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(res.status, 403, method);
      assert.match(((await res.json()) as { error: { message: string } }).error.message, /only available from this machine/, method);
    }
    const shown = await fetch(new URL('/api/call/storage.get', server.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(shown.status, 200, 'the S3 view (never a secret) may be read');
  } finally {
    await server.close();
    await t.close();
  }
});

test('hooks.set is refused over HTTP: choosing programs to run is for this machine only', async () => {
  const t = await makeEngine({ templates: false });
  const server = await startServer({ engine: t.engine, port: 0 });
  try {
    const res = await fetch(new URL('/api/call/hooks.set', server.url), {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hooks: [{ id: 'x', on: ['completed'], kind: 'command', command: '/bin/true' }] }),
    });
    assert.equal(res.status, 403);
    const body = (await res.json()) as { ok: boolean; error: { message: string } };
    assert.match(body.error.message, /only available from this machine/);
    assert.deepEqual(await t.engine.call('hooks.list', {}), []);
  } finally {
    await server.close();
    await t.close();
  }
});
