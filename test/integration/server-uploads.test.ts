/**
 * Input files sent with a shot list (PUT /api/uploads/<sha256>, uploads.check, import.preview's
 * uploads): stored once under <data>/uploads/<sha256>; a file over the limit, a truncated or
 * interrupted upload and a path-traversal name each get a clear error and store nothing; the
 * preview names what was not sent; jobs reference the stored file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../electron/server/server.js';
import { uploadPath } from '../../shared/uploads.js';
import { makeEngine, RESOURCES, type TestEngine } from '../helpers/engine.js';
import { waitUntil } from '../helpers/wait.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const PLATE = readFileSync(join(RESOURCES, 'samples/plates/sh010.png'));

async function withServer(fn: (s: RunningServer, t: TestEngine) => Promise<void>): Promise<void> {
  const t = await makeEngine();
  const server = await startServer({ engine: t.engine });
  try {
    await fn(server, t);
  } finally {
    await server.close();
    await t.close();
  }
}

async function call(
  s: RunningServer,
  method: string,
  body: unknown,
): Promise<{ status: number; body: { ok: boolean; result?: never; error?: { message: string } } }> {
  const res = await fetch(`${s.url}/api/call/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as { ok: boolean; result?: never; error?: { message: string } },
  };
}

async function put(
  s: RunningServer,
  hash: string,
  name: string,
  body: Buffer,
): Promise<{ status: number; message: string }> {
  const res = await fetch(`${s.url}${uploadPath(hash, name)}`, { method: 'PUT', body });
  const j = (await res.json()) as { error?: { message: string } };
  return { status: res.status, message: j.error?.message ?? '' };
}

/** What is stored under <data>/uploads (temporary files included) and in the uploads table. */
function stored(t: TestEngine): { files: string[]; rows: number } {
  const dir = join(t.dir, 'uploads');
  return {
    files: existsSync(dir) ? readdirSync(dir) : [],
    rows: (t.engine.db.one('SELECT COUNT(*) AS n FROM uploads') as { n: number }).n,
  };
}

test('an upload is stored once under its SHA-256, the farm says which hashes it lacks, and a preview references the stored file', async () => {
  await withServer(async (s, t) => {
    const h = sha(PLATE);
    const check = await call(s, 'uploads.check', {
      files: [{ name: 'plates/sh010.png', sha256: h, size: PLATE.length }],
    });
    assert.deepEqual((check.body.result as unknown as { missing: string[] }).missing, [h]);
    assert.equal((await put(s, h, 'plates/sh010.png', PLATE)).status, 201);
    assert.equal((await put(s, h, 'other/name.png', PLATE)).status, 200, 'the same content is not stored again');
    assert.deepEqual(stored(t), { files: [h], rows: 1 });
    const again = await call(s, 'uploads.check', {
      files: [{ name: 'plates/sh010.png', sha256: h, size: PLATE.length }],
    });
    assert.deepEqual((again.body.result as unknown as { missing: string[] }).missing, []);

    const list = JSON.stringify({
      project: 'P',
      episode: 'E',
      shots: [
        {
          id: 's1',
          stage: 'keyframe',
          template: 'keyframe-img2img',
          parameters: { prompt: 'x' },
          inputs: { image: 'plates/sh010.png' },
        },
        {
          id: 's2',
          stage: 'keyframe',
          template: 'keyframe-img2img',
          parameters: { prompt: 'y' },
          inputs: { image: 'plates/sh020.png' },
        },
      ],
    });
    const preview = await call(s, 'import.preview', {
      fileName: 'list.json',
      content: list,
      uploads: { 'plates/sh010.png': h },
    });
    const rows = (
      preview.body.result as unknown as { rows: { status: string; errors: string[]; jobId: string | null }[] }
    ).rows;
    assert.equal(rows[0]?.status, 'new');
    assert.equal(rows[1]?.status, 'error');
    assert.match(
      rows[1]?.errors.join(' ') ?? '',
      /input file "plates\/sh020\.png" for "image" is missing: it was not sent with the shot list/,
    );
    const commit = await call(s, 'import.commit', {
      previewId: (preview.body.result as unknown as { previewId: string }).previewId,
    });
    assert.equal(commit.status, 200);
    const job = t.engine.db.one('SELECT inputs_json FROM jobs') as { inputs_json: string };
    assert.deepEqual(JSON.parse(job.inputs_json), { image: join(t.dir, 'uploads', h) });
  });
});

test('a file over the per-file limit, or files over the per-import limit, are refused with the setting to change; nothing is stored', async () => {
  await withServer(async (s, t) => {
    await t.engine.call('settings.set', { key: 'upload_file_max_mb', value: 0.001 });
    const big = Buffer.alloc(5_000, 7);
    const r = await put(s, sha(big), 'plates/big.png', big);
    assert.equal(r.status, 413);
    assert.match(
      r.message,
      /larger than the farm's limit of 0\.001 MB per file \(setting upload_file_max_mb\); nothing was stored/,
    );
    const c = await call(s, 'uploads.check', { files: [{ name: 'a.png', sha256: sha(big), size: big.length }] });
    assert.equal(c.status, 400);
    assert.match(c.body.error?.message ?? '', /a\.png is .* larger than the farm's limit/);
    await t.engine.call('settings.set', { key: 'upload_file_max_mb', value: 10 });
    await t.engine.call('settings.set', { key: 'upload_import_max_mb', value: 0.01 });
    const many = Array.from({ length: 3 }, (_, i) => ({
      name: `p${i}.png`,
      sha256: String(i).repeat(64),
      size: 5_000,
    }));
    const total = await call(s, 'uploads.check', { files: many });
    assert.equal(total.status, 400);
    assert.match(
      total.body.error?.message ?? '',
      /more than the farm's limit of 0\.01 MB per import \(setting upload_import_max_mb\)/,
    );
    assert.deepEqual(stored(t), { files: [], rows: 0 });
  });
});

test('a truncated upload, one whose content does not match its hash, and an interrupted one store nothing', async () => {
  await withServer(async (s, t) => {
    const h = sha(PLATE);
    await call(s, 'uploads.check', { files: [{ name: 'plates/sh010.png', sha256: h, size: PLATE.length }] });
    const short = await put(s, h, 'plates/sh010.png', PLATE.subarray(0, 100));
    assert.equal(short.status, 400);
    assert.match(short.message, /does not match its SHA-256 .*a truncated or altered upload; nothing was stored/);
    // A connection that announces the whole file and closes half-way.
    const { hostname, port } = new URL(s.url);
    await new Promise<void>((resolve) => {
      const req = request({
        host: hostname,
        port,
        method: 'PUT',
        path: uploadPath(h, 'plates/sh010.png'),
        headers: { 'content-length': PLATE.length },
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write(PLATE.subarray(0, 200), () => setImmediate(() => req.destroy()));
    });
    // The server finishes with the interrupted body on its own schedule: wait for its temp file to go.
    await waitUntil(() => stored(t).files.length === 0, {
      what: "the interrupted upload's temporary file to be removed",
      timeoutMs: 5_000,
      pollMs: 20,
    });
    assert.deepEqual(stored(t), { files: [], rows: 0 });
  });
});

test('a file name that climbs out of the shot list folder, or is absolute, is refused by name; nothing is stored', async () => {
  await withServer(async (s, t) => {
    for (const [name, words] of [
      ['../../etc/passwd', /climbs out of the shot list's folder with "\.\."; refused/],
      ['/etc/passwd', /is an absolute path/],
      ['C:\\x.png', /is an absolute path/],
    ] as const) {
      const r = await put(s, sha(PLATE), name, PLATE);
      assert.equal(r.status, 400, name);
      assert.match(r.message, words);
      const p = await call(s, 'import.preview', {
        fileName: 'l.json',
        content: '{"project":"P","episode":"E","shots":[{"id":"a","stage":"keyframe","template":"keyframe-img2img"}]}',
        uploads: { [name]: sha(PLATE) },
      });
      assert.equal(p.status, 400, name);
      assert.match(p.body.error?.message ?? '', words);
    }
    const bad = await put(s, 'not-a-hash', 'a.png', PLATE);
    assert.equal(bad.status, 400);
    assert.match(bad.message, /is not a SHA-256/);
    assert.deepEqual(stored(t), { files: [], rows: 0 });
  });
});
