/**
 * Issue [R] defect 5: `release.freeze` wrote manifests into any folder it was told and
 * `release.verify` read any path (over the network API too). Both now stay inside the releases
 * root — the `releases_root` farm setting, `<data>/releases` by default — by their real paths.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { startServer } from '../../electron/server/server.js';
import { insertAsset, insertAttempt } from '../helpers/attempt-fixtures.js';
import { runCli } from '../helpers/cli.js';
import { engineFor, importText, type TestEngine } from '../helpers/engine.js';
import { tempDirFor } from '../helpers/temp-dir.js';

const LIST = JSON.stringify({
  project: 'P',
  episode: 'E',
  shots: [{ id: 'sh010', stage: 'keyframe', template: 'keyframe-img2img' }],
});

/** One approved output of one job, ready to freeze. */
async function approvedEpisode(t: TestEngine): Promise<void> {
  const { result } = await importText(t.engine, 'l.json', LIST);
  const jobId = result.jobIds[0]!;
  const path = join(t.dir, 'outputs', 'P/E/sh010/keyframe/take-1/key.png');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, 'pixels');
  const att = insertAttempt(t.engine.db, {
    jobId,
    n: 1,
    instance: 'gpu-01',
    gpu: 'RTX',
    queuedAt: 1,
    dispatchedAt: 1,
    startedAt: 1,
    finishedAt: 2,
    outcome: 'completed',
  });
  insertAsset(t.engine.db, jobId, att, path, 2);
  t.engine.db.run(
    'UPDATE assets SET sha256 = ?, bytes = 6, approved = 1',
    createHash('sha256').update('pixels').digest('hex'),
  );
}

test('freeze writes only inside the releases root: relative names land there, anything outside is refused and nothing written', async (ctx) => {
  const t = await engineFor(ctx);
  await approvedEpisode(t);
  const outside = tempDirFor(ctx);
  const root = join(t.dir, 'releases');

  const r = await t.engine.call('release.freeze', { project: 'P', episode: 'E', outDir: 'P-E-v1' });
  assert.equal(r.manifestJson, join(root, 'P-E-v1', 'manifest.json'));

  for (const outDir of [outside, join(outside, 'deep', 'er'), '../escape', `${root}/../escape`, '/etc/cron.d', root]) {
    await assert.rejects(t.engine.call('release.freeze', { project: 'P', episode: 'E', outDir }), (err: unknown) => {
      assert.ok(err instanceof Error && 'code' in err && err.code === 'bad_input', String(err));
      assert.match(
        err.message,
        outDir === root
          ? /a folder of its own inside the releases root/
          : /is outside the releases root .*releases_root/,
      );
      return true;
    });
  }
  // A link inside the root that leads out is outside too.
  symlinkSync(outside, join(root, 'sneaky'));
  await assert.rejects(
    t.engine.call('release.freeze', { project: 'P', episode: 'E', outDir: 'sneaky/v2' }),
    /is outside the releases root/,
  );
  assert.deepEqual(readdirSync(outside), [], 'nothing was written outside');
  assert.equal(existsSync(join(t.dir, 'escape')), false);

  const viaCli = await runCli(t.dir, 'freeze', '--project', 'P', '--episode', 'E', '--out', join(outside, 'rel'));
  assert.equal(viaCli.code, EXIT.badInput);
  assert.match(viaCli.err, /outside the releases root/);

  // The setting moves the root, at once.
  const elsewhere = tempDirFor(ctx);
  await t.engine.call('settings.set', { key: 'releases_root', value: elsewhere });
  const moved = await t.engine.call('release.freeze', { project: 'P', episode: 'E', outDir: 'v3' });
  assert.equal(moved.manifestJson, join(elsewhere, 'v3', 'manifest.json'));
  assert.equal((await t.engine.call('settings.get', { key: 'releases_root' })).default, root);
});

test('verify reads manifests only inside the releases root, also over the network API', async (ctx) => {
  const t = await engineFor(ctx);
  await approvedEpisode(t);
  const r = await t.engine.call('release.freeze', { project: 'P', episode: 'E', outDir: 'v1' });
  assert.equal((await t.engine.call('release.verify', { path: 'v1/manifest.json' })).passed, true);
  assert.equal((await t.engine.call('release.verify', { path: r.manifestCsv })).passed, true);

  const outside = tempDirFor(ctx);
  const stray = join(outside, 'manifest.json');
  writeFileSync(stray, '{}');
  for (const path of ['/etc/passwd', stray, '../shotfarm.sqlite', t.engine.dbFile]) {
    await assert.rejects(t.engine.call('release.verify', { path }), /is outside the releases root/, path);
  }
  await assert.rejects(
    t.engine.call('release.verify', { path: 'v1/manifest.json', root: outside }),
    /The delivery folder .* is outside the releases root/,
  );

  const server = await startServer({ engine: t.engine, port: 0 });
  ctx.after(() => server.close());
  const res = await fetch(new URL('/api/call/release.verify', server.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path: '/etc/passwd' }),
  });
  const body = (await res.json()) as { ok: boolean; error?: { code: string; message: string } };
  assert.equal(res.status, 400);
  assert.equal(body.error?.code, 'bad_input');
  // A remote caller reads no path of the farm host (server-paths.ts): the words stay, the paths are withheld.
  assert.match(body.error?.message ?? '', /\[a path on the farm host\] is outside the releases root/);
  assert.doesNotMatch(body.error?.message ?? '', /\/etc\/passwd/);
});
