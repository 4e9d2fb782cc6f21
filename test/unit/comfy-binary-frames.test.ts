import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBinaryFrame } from '../../electron/engine/comfy/binary-frames.js';

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

test('type 1 PREVIEW_IMAGE decodes format 1 as jpeg and keeps the image bytes', () => {
  const f = decodeBinaryFrame(Buffer.concat([u32(1), u32(1), JPEG]));
  assert.equal(f.type, 'preview');
  if (f.type !== 'preview') return;
  assert.equal(f.format, 'jpeg');
  assert.equal(f.formatCode, 1);
  assert.deepEqual(Buffer.from(f.bytes), JPEG);
  assert.equal(f.metadata, null);
});

test('type 1 with format 2 is png; other codes are unknown', () => {
  const png = decodeBinaryFrame(Buffer.concat([u32(1), u32(2), PNG]));
  assert.equal(png.type === 'preview' && png.format, 'png');
  const odd = decodeBinaryFrame(Buffer.concat([u32(1), u32(9), PNG]));
  assert.equal(odd.type === 'preview' && odd.format, 'unknown');
});

test('type 3 TEXT decodes the node id and UTF-8 text', () => {
  const node = Buffer.from('12');
  const f = decodeBinaryFrame(Buffer.concat([u32(3), u32(node.length), node, Buffer.from('étape 3/20')]));
  assert.deepEqual(f, { type: 'text', nodeId: '12', text: 'étape 3/20' });
});

test('type 4 PREVIEW_IMAGE_WITH_METADATA decodes the JSON metadata and the image', () => {
  const meta = Buffer.from(
    JSON.stringify({
      node_id: '3',
      prompt_id: 'p-1',
      display_node_id: '3',
      parent_node_id: null,
      real_node_id: '3',
      image_type: 'image/png',
    }),
  );
  const f = decodeBinaryFrame(Buffer.concat([u32(4), u32(meta.length), meta, PNG]));
  assert.equal(f.type, 'preview');
  if (f.type !== 'preview') return;
  assert.equal(f.format, 'png');
  assert.equal(f.metadata?.promptId, 'p-1');
  assert.equal(f.metadata?.nodeId, '3');
  assert.deepEqual(Buffer.from(f.bytes), PNG);
});

test('decoding works on a view into a larger buffer (byteOffset != 0)', () => {
  const big = Buffer.concat([Buffer.from([9, 9, 9]), u32(1), u32(2), PNG]);
  const f = decodeBinaryFrame(big.subarray(3));
  assert.equal(f.type === 'preview' && f.format, 'png');
});

test('truncated and unknown frames are reported, not thrown', () => {
  assert.equal(decodeBinaryFrame(Buffer.from([0, 0])).type, 'malformed_binary');
  assert.equal(decodeBinaryFrame(u32(1)).type, 'malformed_binary');
  assert.equal(decodeBinaryFrame(Buffer.concat([u32(3), u32(50), Buffer.from('x')])).type, 'malformed_binary');
  assert.equal(decodeBinaryFrame(Buffer.concat([u32(4), u32(3), Buffer.from('{{{')])).type, 'malformed_binary');
  assert.deepEqual(decodeBinaryFrame(Buffer.concat([u32(2), u32(0)])), { type: 'unknown_binary', eventType: 2 });
});
