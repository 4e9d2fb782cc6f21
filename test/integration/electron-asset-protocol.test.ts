/**
 * The desktop thumbnails' scheme, `shotfarm-asset://<id>` (electron/main/asset-protocol.ts), run in
 * Node: which URLs name an asset, which ledger rows may be served (the engine's one rule,
 * electron/engine/files/asset-file.ts, that `serve` uses too: files inside the real output folder
 * only — no `..`, no symlink out, not the folder itself), that the desktop adds "images only", that
 * each id is asked of the engine (`assets.file`) rather than learnt from other answers, and what the
 * handler answers. Electron itself cannot run here; the handler is a plain `Request → Response`
 * function, so it is exercised as is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiMethod } from '../../shared/api.js';
import { ASSET_REFUSAL_STATUS, type AssetFileAnswer } from '../../shared/domain.js';
import { confineAssetFile } from '../../electron/engine/files/asset-file.js';
import {
  ASSET_SCHEME,
  ASSET_SCHEME_PRIVILEGES,
  assetIdFromUrl,
  createAssetHandler,
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

interface AssetRecord {
  id: string;
  path: string;
  mediaType: string;
}

const asset = (path: string, mediaType = 'image/png', id = ID): AssetRecord => ({ id, path, mediaType });
/** The HTTP status either host answers a decision with. */
const statusOf = (r: AssetFileAnswer): number => (r.ok ? 200 : ASSET_REFUSAL_STATUS[r.refusal]);
const UNKNOWN: AssetFileAnswer = { ok: false, refusal: 'unknown', message: 'No such asset in the ledger.' };

/** An engine answering `assets.file` from a fixed ledger with the engine's own rule, counting calls. */
function fakeEngine(ledger: AssetRecord[], outputRoot: string) {
  const calls: { method: ApiMethod; input: unknown }[] = [];
  return {
    calls,
    async call(method: ApiMethod, input: unknown) {
      calls.push({ method, input });
      const a = ledger.find((r) => r.id === (input as { id: string }).id);
      return a ? confineAssetFile(a, outputRoot) : UNKNOWN;
    },
  };
}

test('an asset URL is exactly shotfarm-asset://<id>: no path, query, port, credentials or odd characters', () => {
  assert.equal(ASSET_SCHEME, 'shotfarm-asset');
  assert.equal(assetIdFromUrl(`shotfarm-asset://${ID}`), ID);
  assert.equal(assetIdFromUrl(`shotfarm-asset://${ID}/`), ID, 'a standard scheme adds the slash');
  assert.equal(assetIdFromUrl(`shotfarm-asset://${ID.toUpperCase()}`), ID, 'hosts are case-insensitive');
  for (const url of [
    `shotfarm-asset://${ID}/../../etc/passwd`,
    `shotfarm-asset://${ID}/x.png`,
    `shotfarm-asset://${ID}?path=/etc/passwd`,
    `shotfarm-asset://${ID}#x`,
    `shotfarm-asset://u:p@${ID}`,
    `shotfarm-asset://${ID}:8080`,
    'shotfarm-asset://',
    'shotfarm-asset:///etc/passwd',
    'shotfarm-asset://a%2e%2e',
    'shotfarm-asset://..',
    `file:///${ID}`,
    `https://${ID}/`,
    `shotfarm-asset://${'a'.repeat(101)}`,
    'not a url',
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
  for (const url of [
    `shotfarm-asset://${ID}/../x`,
    'shotfarm-asset:///etc/passwd',
    `shotfarm-asset://${ID}?p=/etc/passwd`,
  ]) {
    assert.equal(isAllowedRequest(url, dir), false, url);
  }
});

test('an image inside the output folder is served; its real path and size come back', (t) => {
  const d = farmDirs(t);
  const ok = confineAssetFile(asset(d.image), d.outputs);
  assert.ok(ok.ok);
  assert.equal(ok.bytes, PNG.length);
  assert.equal(ok.mediaType, 'image/png');
  // Reached through `..` segments that stay inside: the same file.
  assert.ok(confineAssetFile(asset(join(d.shot, '..', 'take-1', 'sh010_00001.png')), d.outputs).ok);
});

test('files outside the output folder are refused, whatever the ledger row says: .., absolute, symlinks, the folder itself', (t) => {
  const d = farmDirs(t);
  const refused = (a: AssetRecord, status: number, why: string) => {
    const r = confineAssetFile(a, d.outputs);
    assert.equal(r.ok, false, why);
    assert.equal(statusOf(r), status, why);
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
  assert.ok(
    confineAssetFile(asset(join(outsideLink, 'Moonfall/ep101/sh010/keyframe/take-1/sh010_00001.png')), d.outputs).ok,
  );
  // The output folder reached through a link is still the output folder.
  assert.ok(confineAssetFile(asset(d.image), outsideLink).ok);
});

test('unknown ids, missing files, folders and non-images are not served', async (t) => {
  const d = farmDirs(t);
  const status = (a: AssetRecord, root = d.outputs) => statusOf(confineAssetFile(a, root));
  assert.equal(statusOf(UNKNOWN), 404);
  assert.equal(status(asset(join(d.shot, 'gone.png'))), 404);
  assert.equal(status(asset(d.shot)), 404, 'a folder inside');
  assert.equal(status(asset(d.image), join(d.root, 'no-outputs-yet')), 404, 'no output folder yet');
  // The engine would serve these files (serve shows any ledger file); the desktop shows images only.
  for (const type of ['text/html', 'application/octet-stream', 'video/mp4', 'image/svg+xml; charset=x', '']) {
    const handler = createAssetHandler({ engine: fakeEngine([asset(d.image, type)], d.outputs) });
    assert.equal((await handler({ url: `shotfarm-asset://${ID}`, method: 'GET' })).status, 415, type);
  }
});

test('each thumbnail is asked of the engine by id (assets.file), nothing learnt from other answers or paged', async (t) => {
  const d = farmDirs(t);
  const engine = fakeEngine([asset(d.image)], d.outputs);
  const handler = createAssetHandler({ engine });
  assert.equal((await handler({ url: `shotfarm-asset://${ID}/`, method: 'GET' })).status, 200);
  assert.equal((await handler({ url: 'shotfarm-asset://made-up/', method: 'GET' })).status, 404);
  assert.equal((await handler({ url: 'shotfarm-asset:///etc/passwd', method: 'GET' })).status, 400);
  assert.deepEqual(
    engine.calls,
    [
      { method: 'assets.file', input: { id: ID } },
      { method: 'assets.file', input: { id: 'made-up' } },
    ],
    'one look-up per well-formed id; a malformed address never reaches the engine',
  );
  const odd = createAssetHandler({ engine: { call: async () => ({ ok: true, path: d.image }) } });
  assert.equal(
    (await odd({ url: `shotfarm-asset://${ID}`, method: 'GET' })).status,
    502,
    'an answer of the wrong shape is not served',
  );
});

test('the protocol handler serves the bytes of a known image with nosniff, and refuses everything else', async (t) => {
  const d = farmDirs(t);
  const logs: string[] = [];
  const engine = fakeEngine([asset(d.image), asset(d.secret, 'image/png', 'secret0')], d.outputs);
  const handler = createAssetHandler({ engine, log: (m) => logs.push(m) });

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

  const failing = createAssetHandler({
    engine: {
      call: async () => {
        throw new Error('engine restarting');
      },
    },
  });
  assert.equal((await failing({ url: `shotfarm-asset://${ID}`, method: 'GET' })).status, 503);
});
