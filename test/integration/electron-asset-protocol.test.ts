/**
 * The desktop thumbnails' scheme, `shotfarm-asset://<id>` (electron/main/asset-protocol.ts), run in
 * Node: which URLs name an asset, which ledger rows may be served (images inside the real output
 * folder only — no `..`, no symlink out, not the folder itself), how ids are learnt from the
 * engine's answers and looked up, and what the handler answers. Electron itself cannot run here;
 * the handler is a plain `Request → Response` function, so it is exercised as is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiMethod } from '../../shared/api.js';
import {
  ASSET_SCHEME, ASSET_SCHEME_PRIVILEGES, AssetDirectory, assetIdFromUrl, createAssetHandler, decideAssetFile, type AssetRecord,
} from '../../electron/main/asset-protocol.js';
import { CSP_META, isAllowedRequest } from '../../electron/main/security.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const ID = '3b241101-e2bb-4255-8caf-4136c566a962';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

function farmDirs(t: { after(fn: () => void): void }) {
  const tmp = makeTempDir('shotfarm-asset-proto-');
  t.after(tmp.cleanup);
  const outputs = join(tmp.path, 'outputs');
  const shot = join(outputs, 'Moonfall', 'ep101', 'sh010', 'keyframe', 'take-1');
  mkdirSync(shot, { recursive: true });
  const image = join(shot, 'sh010_00001.png');
  writeFileSync(image, PNG);
  const secret = join(tmp.path, 'shotfarm.sqlite');
  writeFileSync(secret, 'not for the page');
  return { root: tmp.path, outputs, shot, image, secret };
}

const asset = (path: string, mediaType = 'image/png', id = ID): AssetRecord => ({ id, path, mediaType });

test('an asset URL is exactly shotfarm-asset://<id>: no path, query, port, credentials or odd characters', () => {
  assert.equal(ASSET_SCHEME, 'shotfarm-asset');
  assert.equal(assetIdFromUrl(`shotfarm-asset://${ID}`), ID);
  assert.equal(assetIdFromUrl(`shotfarm-asset://${ID}/`), ID, 'a standard scheme adds the slash');
  assert.equal(assetIdFromUrl(`shotfarm-asset://${ID.toUpperCase()}`), ID, 'hosts are case-insensitive');
  for (const url of [
    `shotfarm-asset://${ID}/../../etc/passwd`, `shotfarm-asset://${ID}/x.png`, `shotfarm-asset://${ID}?path=/etc/passwd`,
    `shotfarm-asset://${ID}#x`, `shotfarm-asset://u:p@${ID}`, `shotfarm-asset://${ID}:8080`, 'shotfarm-asset://',
    'shotfarm-asset:///etc/passwd', 'shotfarm-asset://a%2e%2e', 'shotfarm-asset://..', `file:///${ID}`, `https://${ID}/`,
    `shotfarm-asset://${'a'.repeat(101)}`, 'not a url',
  ]) {
    assert.equal(assetIdFromUrl(url), null, url);
  }
});

test('the scheme is standard and secure but gets no fetch, CORS, service workers or CSP bypass', () => {
  assert.deepEqual(ASSET_SCHEME_PRIVILEGES.scheme, ASSET_SCHEME);
  const p = ASSET_SCHEME_PRIVILEGES.privileges;
  assert.equal(p.standard, true);
  assert.equal(p.secure, true);
  assert.equal(p.bypassCSP, false);
  assert.equal(p.supportFetchAPI, false);
  assert.equal(p.corsEnabled, false);
  assert.equal(p.allowServiceWorkers, false);
});

test('the CSP lets images come from the scheme, and the request filter lets only well-formed asset URLs through', () => {
  assert.match(CSP_META, /img-src 'self' data: blob: shotfarm-asset:(;|$)/);
  const dir = '/opt/app/dist/renderer';
  assert.ok(isAllowedRequest(`shotfarm-asset://${ID}/`, dir));
  for (const url of [`shotfarm-asset://${ID}/../x`, 'shotfarm-asset:///etc/passwd', `shotfarm-asset://${ID}?p=/etc/passwd`]) {
    assert.equal(isAllowedRequest(url, dir), false, url);
  }
});

test('an image inside the output folder is served; its real path and size come back', (t) => {
  const d = farmDirs(t);
  const ok = decideAssetFile(asset(d.image), d.outputs);
  assert.ok(ok.ok);
  assert.equal(ok.size, PNG.length);
  assert.equal(ok.mediaType, 'image/png');
  // Reached through `..` segments that stay inside: the same file.
  assert.ok(decideAssetFile(asset(join(d.shot, '..', 'take-1', 'sh010_00001.png')), d.outputs).ok);
});

test('files outside the output folder are refused, whatever the ledger row says: .., absolute, symlinks, the folder itself', (t) => {
  const d = farmDirs(t);
  const refused = (a: AssetRecord | null, status: number, why: string) => {
    const r = decideAssetFile(a, d.outputs);
    assert.equal(r.ok, false, why);
    assert.equal(!r.ok && r.status, status, why);
  };
  refused(asset(d.secret), 403, 'a file next to the output folder');
  refused(asset(join(d.outputs, '..', 'shotfarm.sqlite')), 403, 'climbing out with ..');
  refused(asset('/etc/hostname'), 403, 'an absolute path elsewhere');
  refused(asset(d.outputs), 403, 'the output folder itself');
  refused(asset('outputs/Moonfall/x.png'), 403, 'a relative path');
  refused(asset(`${d.image}\0.png`), 403, 'a NUL byte');

  const link = join(d.shot, 'escape.png');
  symlinkSync(d.secret, link);
  refused(asset(link), 403, 'a link inside pointing outside');
  // A link to the whole output folder from elsewhere: the real path is what counts, and it is inside.
  const outsideLink = join(d.root, 'outputs-link');
  symlinkSync(d.outputs, outsideLink);
  assert.ok(decideAssetFile(asset(join(outsideLink, 'Moonfall/ep101/sh010/keyframe/take-1/sh010_00001.png')), d.outputs).ok);
  // The output folder reached through a link is still the output folder.
  assert.ok(decideAssetFile(asset(d.image), outsideLink).ok);
});

test('unknown ids, missing files, folders and non-images are not served', (t) => {
  const d = farmDirs(t);
  const status = (a: AssetRecord | null, root = d.outputs) => {
    const r = decideAssetFile(a, root);
    return r.ok ? 200 : r.status;
  };
  assert.equal(status(null), 404);
  assert.equal(status(asset(join(d.shot, 'gone.png'))), 404);
  assert.equal(status(asset(d.shot)), 404, 'a folder inside');
  assert.equal(status(asset(d.image), join(d.root, 'no-outputs-yet')), 404, 'no output folder yet');
  for (const type of ['text/html', 'application/octet-stream', 'video/mp4', 'image/svg+xml; charset=x', '']) {
    assert.equal(status(asset(d.image, type)), 415, type);
  }
});

/** An engine host answering `assets.list` from a fixed ledger, counting calls. */
function fakeHost(ledger: AssetRecord[]) {
  const calls: { method: ApiMethod; input: unknown }[] = [];
  return {
    calls,
    async call(method: ApiMethod, input: unknown) {
      calls.push({ method, input });
      if (method !== 'assets.list') return { other: true };
      const { offset = 0, limit = 200 } = input as { offset?: number; limit?: number };
      return { rows: ledger.slice(offset, offset + limit).map((a) => ({ ...a, fileName: 'x', sha256: 'y' })), total: ledger.length };
    },
  };
}

test('the directory learns ids from the assets.list answers passing through, and only from those', async () => {
  const host = fakeHost([asset('/out/a.png', 'image/png', 'a1'), asset('/out/b.png', 'image/png', 'b2')]);
  const dir = new AssetDirectory(host, { rescanAfterMs: 1_000_000, now: () => 0 });
  const target = dir.observing(host);
  await target.call('farm.status', {});
  await target.call('jobs.list', { rows: [asset('/etc/passwd', 'image/png', 'evil')] } as never);
  assert.equal(dir.size, 0, 'nothing learnt from other methods (nor from inputs)');
  const page = await target.call('assets.list', { limit: 1 });
  assert.equal((page as { rows: unknown[] }).rows.length, 1, 'the answer is passed on unchanged');
  assert.equal(dir.size, 1);
  assert.deepEqual(await dir.find('a1'), asset('/out/a.png', 'image/png', 'a1'));
  assert.equal(host.calls.length, 3, 'a known id needs no call');
});

test('an unknown id is looked up by paging assets.list, once at a time and not again too soon', async () => {
  const ledger = Array.from({ length: 25 }, (_, i) => asset(`/out/${i}.png`, 'image/png', `id-${i}`));
  const host = fakeHost(ledger);
  let now = 0;
  const dir = new AssetDirectory(host, { pageSize: 10, maxScan: 100, rescanAfterMs: 5_000, now: () => now });
  const [a, b] = await Promise.all([dir.find('id-24'), dir.find('id-3')]);
  assert.equal(a?.path, '/out/24.png');
  assert.equal(b?.path, '/out/3.png');
  assert.deepEqual(host.calls.map((c) => c.input), [{ offset: 0, limit: 10 }, { offset: 10, limit: 10 }, { offset: 20, limit: 10 }], 'one scan for both');
  assert.equal(await dir.find('made-up'), null, 'a miss right after a scan does not scan again');
  assert.equal(host.calls.length, 3);
  now = 6_000;
  assert.equal(await dir.find('made-up'), null);
  assert.equal(host.calls.length, 6, 'later, a new scan');
  const capped = new AssetDirectory(fakeHost(ledger), { pageSize: 10, maxScan: 10, now: () => 0 });
  assert.equal(await capped.find('id-24'), null, 'a scan reads at most maxScan rows');
  const small = new AssetDirectory(host, { maxEntries: 5, now: () => 0 });
  small.observe('assets.list', { rows: ledger });
  assert.equal(small.size, 5, 'memory is bounded');
});

test('the protocol handler serves the bytes of a known image with nosniff, and refuses everything else', async (t) => {
  const d = farmDirs(t);
  const logs: string[] = [];
  const known = new Map<string, AssetRecord>([[ID, asset(d.image)], ['secret0', asset(d.secret, 'image/png', 'secret0')]]);
  const handler = createAssetHandler({ directory: { find: async (id) => known.get(id) ?? null }, outputRoot: d.outputs, log: (m) => logs.push(m) });

  const res = await handler(new Request(`shotfarm-asset://${ID}/`));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'image/png');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.match(res.headers.get('content-security-policy') ?? '', /sandbox/);
  assert.deepEqual(Buffer.from(await res.arrayBuffer()), PNG);

  const head = await handler({ url: `shotfarm-asset://${ID}`, method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('content-length'), String(PNG.length));

  const status = async (url: string, method = 'GET') => (await handler({ url, method })).status;
  assert.equal(await status('shotfarm-asset://secret0/'), 403);
  assert.ok(logs.some((l) => l.includes('outside the output folder')));
  assert.equal(await status('shotfarm-asset://unknown/'), 404);
  assert.equal(await status(`shotfarm-asset://${ID}/../../shotfarm.sqlite`), 400);
  assert.equal(await status(`shotfarm-asset://${ID}/`, 'POST'), 405);

  const failing = createAssetHandler({ directory: { find: async () => { throw new Error('engine restarting'); } }, outputRoot: d.outputs });
  assert.equal((await failing({ url: `shotfarm-asset://${ID}`, method: 'GET' })).status, 503);
});
