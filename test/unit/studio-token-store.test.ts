import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  MemoryTokenStore,
  SafeStorageTokenStore,
  TOKEN_FILE,
  type SafeStorageLike,
  type TokenStore,
} from '../../electron/main/token-store.js';
import { readFarmChoice, studioOrigin, withMetaCsp, writeFarmChoice } from '../../electron/main/farm-choice.js';
import { CSP_META, isAllowedRequest, studioCsp } from '../../electron/main/security.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** A stand-in for Electron's safeStorage: reversible, and never the plain bytes. */
function fakeSafeStorage(available = true): SafeStorageLike {
  const key = 0x5a;
  return {
    isEncryptionAvailable: () => available,
    encryptString: (plain) => Buffer.from([0x01, ...Buffer.from(plain, 'utf8').map((b) => b ^ key)]),
    decryptString: (enc) => {
      if (enc[0] !== 0x01) throw new Error('not ours');
      return Buffer.from(enc.subarray(1).map((b) => b ^ key)).toString('utf8');
    },
  };
}

test('the token store keeps, replaces and clears the token through its seam (in memory and encrypted on disk)', (ctx) => {
  const dir = makeTempDir('shotfarm-tokens-');
  ctx.after(() => dir.cleanup());
  const stores: [string, TokenStore][] = [
    ['memory', new MemoryTokenStore()],
    ['safeStorage', new SafeStorageTokenStore(join(dir.path, TOKEN_FILE), fakeSafeStorage())],
  ];
  for (const [name, store] of stores) {
    assert.equal(store.read(), null, name);
    store.write('sf_mira_1');
    store.write('sf_mira_2');
    assert.equal(store.read(), 'sf_mira_2', `${name}: a new token replaces the old`);
    store.clear();
    assert.equal(store.read(), null, name);
  }
});

test('on disk the token is never plain: written encrypted, refused when the OS offers no encryption, unreadable bytes read as none', (ctx) => {
  const dir = makeTempDir('shotfarm-tokens-');
  ctx.after(() => dir.cleanup());
  const file = join(dir.path, TOKEN_FILE);
  new SafeStorageTokenStore(file, fakeSafeStorage()).write('sf_secret_token');
  assert.ok(
    !readFileSync(file).includes(Buffer.from('sf_secret_token')),
    'the file does not hold the token in plain text',
  );
  assert.throws(
    () => new SafeStorageTokenStore(join(dir.path, 'other.bin'), fakeSafeStorage(false)).write('x'),
    /no encrypted storage for the token .* not stored in plain text/,
  );
  writeFileSync(file, 'garbage');
  assert.equal(new SafeStorageTokenStore(file, fakeSafeStorage()).read(), null);
});

test("the studio farm's address: an http(s) origin; a path, credentials or another scheme are refused with what to fix", () => {
  assert.deepEqual(studioOrigin('http://farm-host:8080/'), { ok: true, origin: 'http://farm-host:8080' });
  assert.deepEqual(studioOrigin(' https://farm.studio.lan/?token=abc '), {
    ok: true,
    origin: 'https://farm.studio.lan',
  });
  const bad: [string, RegExp][] = [
    ['farm-host', /is not a URL/],
    ['ftp://farm', /must start with http:\/\/ or https:\/\//],
    ['http://u:p@farm', /user name or password/],
    ['http://farm/api', /without a path/],
  ];
  for (const [text, words] of bad) {
    const r = studioOrigin(text);
    assert.equal(r.ok, false, text);
    if (!r.ok) assert.match(r.message, words);
  }
});

test("the choice is kept without the token; studio mode's CSP and request filter allow exactly the farm's origin and its WebSocket", (ctx) => {
  const dir = makeTempDir('shotfarm-choice-');
  ctx.after(() => dir.cleanup());
  const file = join(dir.path, 'farm-choice.json');
  assert.equal(readFarmChoice(file), null, 'no choice stored: the first start asks');
  writeFarmChoice(file, { mode: 'studio', origin: 'http://farm:8080' });
  assert.deepEqual(readFarmChoice(file), { mode: 'studio', origin: 'http://farm:8080' });
  assert.doesNotMatch(readFileSync(file, 'utf8'), /token/);
  writeFileSync(file, '{"mode":"studio","origin":"javascript:alert(1)"}');
  assert.equal(readFarmChoice(file), null);

  const csp = studioCsp('http://farm:8080');
  assert.match(csp.meta, /connect-src 'self' http:\/\/farm:8080 ws:\/\/farm:8080;/);
  assert.match(csp.meta, /img-src 'self' data: blob: shotfarm-asset: http:\/\/farm:8080;/, 'thumbnails from the farm');
  assert.equal(
    csp.meta.replace(' http://farm:8080 ws://farm:8080', '').replace(' http://farm:8080;', ';'),
    CSP_META,
    'only connect-src and img-src differ',
  );
  assert.match(csp.header, /frame-ancestors 'none'$/);
  const html = `<meta http-equiv="Content-Security-Policy" content="${CSP_META}" />`;
  assert.equal(withMetaCsp(html, csp.meta), `<meta http-equiv="Content-Security-Policy" content="${csp.meta}" />`);
  for (const url of ['http://farm:8080/api/call/farm.status', 'ws://farm:8080/api/events'])
    assert.ok(isAllowedRequest(url, '/app', 'http://farm:8080'), url);
  for (const url of ['http://farm:8081/', 'http://evil.example/', 'wss://farm:8080/'])
    assert.ok(!isAllowedRequest(url, '/app', 'http://farm:8080'), url);
  assert.ok(!isAllowedRequest('http://farm:8080/', '/app'), 'on "This computer" no remote request passes');
});
