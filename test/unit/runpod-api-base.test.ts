/** Where the RunPod key may go (cloud/api-base.ts), table-tested: pure functions, no I/O. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyMayGoTo, normaliseApiBase, RUNPOD_API_BASE } from '../../electron/engine/pools/runpod/api-base.js';
import { desktopPageRefusal, networkRefusal } from '../../electron/engine/hosting/reach-refusal.js';
import type { ApiMethod } from '../../shared/api.js';

test('a page transport refuses any apiBase on cloud.addRunpod (forbidden), and nothing else because of it', () => {
  const rows: [string, string, unknown, boolean][] = [
    ['a foreign base', 'cloud.addRunpod', { name: 'x', apiBase: 'http://10.0.0.5:9000/v2' }, true],
    ["RunPod's own base, named", 'cloud.addRunpod', { name: 'x', apiBase: RUNPOD_API_BASE }, true],
    [
      'a base that is not even a URL (the engine would refuse it later; the transport first)',
      'cloud.addRunpod',
      { apiBase: 42 },
      true,
    ],
    ['no apiBase', 'cloud.addRunpod', { name: 'x', endpointId: 'e' }, false],
    [
      'apiBase: undefined (JSON never carries it; an IPC value may)',
      'cloud.addRunpod',
      { name: 'x', apiBase: undefined },
      false,
    ],
    ['not an object', 'cloud.addRunpod', null, false],
    ['another method with such a field', 'instances.add', { apiBase: 'http://x/v2' }, false],
  ];
  for (const [what, method, input, refused] of rows) {
    const env = networkRefusal(method as ApiMethod, input);
    assert.equal(env !== null, refused, what);
    if (env) {
      assert.equal(env.code, 'forbidden', what);
      assert.match(env.message, /shotfarm workers add-runpod --api-base/, what);
    }
  }
});

test("the desktop page's policy carries the same refusal", () => {
  assert.equal(desktopPageRefusal('cloud.addRunpod', { apiBase: 'http://127.0.0.1:1/v2' })?.code, 'forbidden');
  assert.equal(desktopPageRefusal('cloud.addRunpod', { name: 'x' }), null);
});

test("the key goes to RunPod's API, or to a base chosen on the farm host, and nowhere else", () => {
  const rows: [string, { runpod: { apiBase: string }; apiBaseLocal: boolean }, boolean][] = [
    ["RunPod's API, stored", { runpod: { apiBase: RUNPOD_API_BASE }, apiBaseLocal: false }, true],
    ["RunPod's API with a trailing slash", { runpod: { apiBase: `${RUNPOD_API_BASE}/` }, apiBaseLocal: false }, true],
    ["no base stored: the store applies RunPod's", { runpod: { apiBase: RUNPOD_API_BASE }, apiBaseLocal: false }, true],
    ['a base chosen on the host', { runpod: { apiBase: 'http://127.0.0.1:9/v2' }, apiBaseLocal: true }, true],
    [
      'a base not chosen on the host (an older row)',
      { runpod: { apiBase: 'http://127.0.0.1:9/v2' }, apiBaseLocal: false },
      false,
    ],
    [
      "a look-alike of RunPod's host",
      { runpod: { apiBase: 'https://api.runpod.ai.evil.example/v2' }, apiBaseLocal: false },
      false,
    ],
    [
      "RunPod's host on another path",
      { runpod: { apiBase: 'https://api.runpod.ai/v2/../x' }, apiBaseLocal: false },
      false,
    ],
  ];
  for (const [what, row, goes] of rows) assert.equal(keyMayGoTo(row), goes, what);
});

test('bases are compared without trailing slashes', () => {
  assert.equal(normaliseApiBase(' https://x/v2// '), 'https://x/v2');
});
