/**
 * Issue 29: `upload_import_max_mb` was checked only by the preview (30 direct PUTs stored 26.6 MB
 * against a 3 MB limit), nothing bounded what one person uploads, no upload was ever removed, and a
 * full disk answered 400 "send it again". Now a PUT must match its sender's announcement
 * (uploads.check) and its size, a person's uploads are bounded by upload_person_max_mb at the check
 * and at the PUT, files no job uses are swept after upload_unused_keep_h, and a full data disk
 * answers 507 with a storage word.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../electron/server/server.js';
import { uploadPath } from '../../shared/uploads.js';
import { engineFor, REPO, type TestEngine } from '../helpers/engine.js';
import { addPerson, callAs } from '../helpers/people.js';
import { privateMountUnavailable } from '../helpers/private-mount.js';
import { tempDirFor } from '../helpers/temp-dir.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
/** A distinct file of `bytes` bytes. */
const file = (n: number, bytes = 1_000): Buffer => Buffer.alloc(bytes, n % 251);

async function put(
  url: string,
  token: string | null,
  body: Buffer,
  name = 'plate.png',
): Promise<{ status: number; code: string; message: string }> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const res = await fetch(`${url}${uploadPath(sha(body), name)}`, { method: 'PUT', headers, body });
  const j = (await res.json()) as { error?: { code: string; message: string } };
  return { status: res.status, code: j.error?.code ?? '', message: j.error?.message ?? '' };
}

function announce(url: string, token: string | null, files: Buffer[]) {
  return callAs(url, token, 'uploads.check', {
    files: files.map((b, i) => ({ name: `p${i}.png`, sha256: sha(b), size: b.length })),
  });
}

function storedBytes(t: TestEngine): number {
  return (t.engine.db.one('SELECT COALESCE(SUM(size), 0) AS n FROM uploads') as { n: number }).n;
}

async function serverFor(ctx: {
  after: (fn: () => Promise<void>) => void;
}): Promise<{ t: TestEngine; s: RunningServer }> {
  const t = await engineFor(ctx as never);
  const s = await startServer({ engine: t.engine });
  ctx.after(() => s.close());
  return { t, s };
}

test('direct PUTs are refused at the PUT unless announced, announced ones stay within the per-import limit and their announced size', async (ctx) => {
  const { t, s } = await serverFor(ctx);
  await t.engine.call('settings.set', { key: 'upload_import_max_mb', value: 0.01 }); // 10,485 bytes
  // The issue's run: 30 direct PUTs, no announcement.
  for (let n = 0; n < 30; n++) {
    const r = await put(s.url, null, file(n));
    assert.equal(r.status, 409, `direct PUT ${n}`);
    assert.match(r.message, /was not announced for an import.*upload_import_max_mb.*nothing was stored/);
  }
  assert.equal(storedBytes(t), 0, 'nothing stored by direct PUTs');

  const first = [file(100), file(101), file(102), file(103)];
  assert.equal((await announce(s.url, null, first)).status, 200);
  for (const b of first.slice(0, 2)) assert.equal((await put(s.url, null, b)).status, 201);
  // A second import announced while the first is half sent: all announcements together stay within the limit,
  // so the first import's oldest unsent files are no longer taken.
  const second = Array.from({ length: 9 }, (_, i) => file(200 + i));
  assert.equal((await announce(s.url, null, second)).status, 200);
  assert.equal(
    (await put(s.url, null, first[2] as Buffer)).status,
    409,
    'dropped to keep the announcements within the limit',
  );
  for (const b of second) assert.equal((await put(s.url, null, b)).status, 201);
  assert.ok(storedBytes(t) <= 2 * 10_485, `stored ${storedBytes(t)} bytes`);

  // More bytes than announced: refused as they arrive.
  const small = file(300, 500);
  assert.equal((await announce(s.url, null, [small])).status, 200);
  const res = await fetch(`${s.url}${uploadPath(sha(small), 'p.png')}`, {
    method: 'PUT',
    body: Buffer.concat([small, Buffer.alloc(600)]),
  });
  assert.equal(res.status, 413);
  assert.match(
    ((await res.json()) as { error: { message: string } }).error.message,
    /p\.png is \d+ bytes or more, more than the 500 bytes announced for it/,
  );
  assert.equal(existsSync(join(t.dir, 'uploads', sha(small))), false);
});

test("a person's uploads are bounded by upload_person_max_mb at the check and at the PUT; another person is not held by it", async (ctx) => {
  const { t, s } = await serverFor(ctx);
  await t.engine.call('settings.set', { key: 'upload_person_max_mb', value: 0.005 }); // 5,242 bytes
  const ana = await addPerson(t.engine, 'ana', 'artist');
  const ben = await addPerson(t.engine, 'ben', 'artist');
  const kept = [file(1), file(2), file(3)];
  assert.equal((await announce(s.url, ana, kept)).status, 200);
  for (const b of kept) assert.equal((await put(s.url, ana, b)).status, 201);

  const refused = await announce(s.url, ana, [file(4), file(5), file(6)]);
  assert.equal(refused.status, 400, 'at the check: 3,000 kept + 3,000 more');
  assert.match(
    refused.body.error?.message ?? '',
    /uploaded by ana come to .* over the farm's limit of 0\.005 MB per person \(setting upload_person_max_mb\)/,
  );

  // Two announcements that each fit, together do not: the PUT that would pass the quota is refused.
  assert.equal((await announce(s.url, ana, [file(7), file(8)])).status, 200);
  assert.equal((await announce(s.url, ana, [file(9)])).status, 200);
  assert.equal((await put(s.url, ana, file(7))).status, 201);
  assert.equal((await put(s.url, ana, file(8))).status, 201);
  const over = await put(s.url, ana, file(9));
  assert.equal(over.status, 413, 'at the PUT');
  assert.match(over.message, /per person \(setting upload_person_max_mb\)/);
  assert.equal(existsSync(join(t.dir, 'uploads', sha(file(9)))), false);

  assert.equal((await announce(s.url, ben, [file(10)])).status, 200);
  assert.equal((await put(s.url, ben, file(10))).status, 201, 'ben has his own quota');
});

test('uploads no job uses are swept after upload_unused_keep_h; a file a job uses, and one just announced, stay', async (ctx) => {
  const { t, s } = await serverFor(ctx);
  await t.engine.call('settings.set', { key: 'upload_unused_keep_h', value: 2 });
  const unused = file(1);
  const used = file(50, 2_000); // the input a job will name
  assert.equal((await announce(s.url, null, [unused, used])).status, 200);
  assert.equal((await put(s.url, null, unused)).status, 201);
  assert.equal((await put(s.url, null, used, 'plates/sh010.png')).status, 201);
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
    ],
  });
  const preview = await callAs(s.url, null, 'import.preview', {
    fileName: 'l.json',
    content: list,
    uploads: { 'plates/sh010.png': sha(used) },
  });
  assert.equal(
    (
      await callAs(s.url, null, 'import.commit', {
        previewId: (preview.body.result as { previewId: string }).previewId,
      })
    ).status,
    200,
  );

  t.clock.advance(90 * 60_000);
  const fresh = file(2);
  assert.equal((await announce(s.url, null, [fresh])).status, 200);
  assert.equal((await put(s.url, null, fresh)).status, 201);
  assert.ok(existsSync(join(t.dir, 'uploads', sha(unused))), 'kept before upload_unused_keep_h');

  t.clock.advance(60 * 60_000); // 2.5 h after the first two, 1 h after `fresh`
  // What a crash mid-upload leaves: a temporary file nobody writes to any more; and one being written now.
  const stale = join(t.dir, 'uploads', '.tmp-left-by-a-crash');
  const writing = join(t.dir, 'uploads', '.tmp-being-written');
  writeFileSync(stale, 'x');
  writeFileSync(writing, 'x');
  utimesSync(stale, new Date(t.clock.now() - 3 * 3_600_000), new Date(t.clock.now() - 3 * 3_600_000));
  utimesSync(writing, new Date(t.clock.now()), new Date(t.clock.now()));
  assert.equal((await announce(s.url, null, [file(3)])).status, 200); // any upload path sweeps when due
  assert.deepEqual(
    readdirSync(join(t.dir, 'uploads')).sort(),
    [sha(used), sha(fresh), '.tmp-being-written'].sort(),
    'the unused file and the stale temporary went; the used, the fresh and the one being written stay',
  );
  const rows = (t.engine.db.all('SELECT sha256 FROM uploads') as { sha256: string }[]).map((r) => r.sha256).sort();
  assert.deepEqual(rows, [sha(used), sha(fresh)].sort());
  const again = await announce(s.url, null, [unused]);
  assert.deepEqual(
    (again.body.result as { missing: string[] }).missing,
    [sha(unused)],
    'the farm asks for the swept file again',
  );
});

test('an upload on a full data disk answers 507 with a storage word, not 400 "send it again"; nothing is left', {
  timeout: 60_000,
}, async (ctx) => {
  const scratch = tempDirFor(ctx, 'shotfarm-upload-full-');
  const why = privateMountUnavailable(scratch);
  if (why) return ctx.skip(why);
  const mount = join(scratch, 'mnt');
  mkdirSync(mount);
  const data = join(mount, 'data');
  // serve on a 4 MB tmpfs of its own (a private mount namespace; loopback is shared, so we can reach it).
  const script = `mount -t tmpfs -o size=4096k tmpfs '${mount}' || exit 90; exec '${process.execPath}' '${join(REPO, 'bin/shotfarm.js')}' --data '${data}' serve --port 0 --static '${mount}'`;
  const child = spawn('unshare', ['-rm', 'sh', '-c', script], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SHOTFARM_DATA: '' },
  });
  ctx.after(() => void child.kill('SIGKILL'));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no URL:\n${out}`)), 30_000);
    const take = (c: Buffer) => {
      out += c.toString();
      const m = /Open (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.once('exit', (code) => reject(new Error(`serve exited ${code}:\n${out}`)));
  });
  const big = Buffer.alloc(6 * 1024 * 1024, 9);
  assert.equal((await announce(url, null, [big])).status, 200);
  const r = await put(url, null, big, 'plates/big.png');
  assert.equal(r.status, 507, `${r.status} ${r.message}`);
  assert.equal(r.code, 'storage');
  assert.match(r.message, /the farm's data disk is full; nothing was stored\. Free space on the farm host/);
  assert.doesNotMatch(r.message, /interrupted/);
  // The farm still answers, and holds no part of the file (announcing it again asks for it again).
  const again = await announce(url, null, [big]);
  assert.deepEqual((again.body.result as { missing: string[] }).missing, [sha(big)]);
});
