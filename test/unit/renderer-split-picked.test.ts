import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Sha256 } from '../../renderer/lib/sha256.js';
import { splitPicked } from '../../renderer/features/import/split-picked.js';

test("the page's SHA-256 (for pages without WebCrypto) agrees with node:crypto across block edges and slices", () => {
  for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1_000, 70_000]) {
    const bytes = Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + 7) & 255));
    const h = new Sha256();
    h.update(bytes.subarray(0, n >> 1));
    h.update(bytes.subarray(n >> 1));
    assert.equal(h.hex(), createHash('sha256').update(bytes).digest('hex'), `${n} bytes`);
  }
});

test("a drop splits into the shot list and its inputs, named relative to the list's folder", () => {
  const f = (name: string) => new File(['x'], name);
  const folder = splitPicked([
    { file: f('sh010.png'), path: 'ep101/plates/sh010.png' },
    { file: f('list.json'), path: 'ep101/list.json' },
    { file: f('notes.txt'), path: 'ep101/old/notes.txt' },
  ]);
  assert.ok(folder.ok);
  assert.equal(folder.list.path, 'ep101/list.json', 'the shallowest list file is the shot list');
  assert.deepEqual(
    folder.inputs.map((i) => i.name),
    ['plates/sh010.png'],
  );
  const loose = splitPicked([
    { file: f('a.csv'), path: 'a.csv' },
    { file: f('sh010.png'), path: 'sh010.png' },
  ]);
  assert.ok(loose.ok);
  assert.deepEqual(
    loose.inputs.map((i) => i.name),
    ['sh010.png'],
  );
  const alone = splitPicked([{ file: f('plate.png'), path: 'plate.png' }]);
  assert.ok(
    alone.ok && alone.list.path === 'plate.png' && alone.inputs.length === 0,
    'one file is the list (the preview says if it is not one)',
  );
  const none = splitPicked([
    { file: f('sh010.png'), path: 'sh010.png' },
    { file: f('sh020.png'), path: 'sh020.png' },
  ]);
  assert.equal(none.ok, false);
  if (!none.ok) assert.match(none.message, /None of the dropped files is a shot list/);
});
