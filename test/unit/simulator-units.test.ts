// Pure parts of the simulator: the shape fingerprint used by the fidelity tests, the PromptQueue
// heap, the validator's texts, and behaviour-word parsing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shapeOf, maskShape } from '../simulator/testing/shape.js';
import { PromptQueue, type QueueItem } from '../simulator/prompt-queue.js';
import { validatePrompt } from '../simulator/validate.js';
import { buildCatalog, DEFAULT_NODE_CLASSES } from '../simulator/node-catalog.js';
import { parseWord } from '../simulator/script.js';

const item = (n: number, id: string): QueueItem => [n, id, {}, {}, []];

test('shapeOf ignores values, sorts keys and treats arrays as the set of their element shapes', () => {
  assert.deepEqual(shapeOf({ b: 1, a: ['x', 'y', 2], c: null }), {
    a: { arrayOf: ['number', 'string'] },
    b: 'number',
    c: 'null',
  });
  assert.deepEqual(shapeOf([]), { arrayOf: [] });
  assert.notDeepEqual(shapeOf({ a: 1 }), shapeOf({ a: '1' }));
  assert.deepEqual(maskShape(shapeOf({ d: [{ index: null }] }), ['d', '[]', 'index'], 'masked'), {
    d: { arrayOf: [{ index: 'masked' }] },
  });
});

test('the prompt queue pops by [number, prompt_id] and exposes the raw, unsorted heap', () => {
  const q = new PromptQueue();
  for (const [n, id] of [
    [45, 'b'],
    [-46, 'c'],
    [-1000, 'd'],
    [50, 'e'],
    [45, 'a'],
  ] as const)
    q.put(item(n, id));
  assert.equal(q.pending[0]![1], 'd', 'element 0 is the next one');
  const order: string[] = [];
  for (let it = q.take(); it; it = q.take()) order.push(it[1]);
  assert.deepEqual(order, ['d', 'c', 'a', 'b', 'e']);
});

test('deleting a pending item keeps the heap valid', () => {
  const q = new PromptQueue();
  for (let i = 0; i < 8; i++) q.put(item(i, `p${i}`));
  assert.equal(q.deletePending('p0'), true);
  assert.equal(q.deletePending('nope'), false);
  assert.equal(q.take()![1], 'p1');
});

test('history with max_items and offset follows ComfyUI arithmetic', () => {
  const q = new PromptQueue();
  for (const id of ['a', 'b', 'c']) {
    q.put(item(0, id));
    q.finish({
      prompt: q.take()!,
      outputs: {},
      status: { status_str: 'success', completed: true, messages: [] },
      meta: {},
    });
  }
  assert.deepEqual(Object.keys(q.getHistory(2, -1)), ['b', 'c']);
  assert.deepEqual(Object.keys(q.getHistory(1, 0)), ['a']);
  assert.deepEqual(Object.keys(q.getHistory(null, -1)), ['a', 'b', 'c']);
});

test('an error upstream of the only output leaves error.details empty, an own error fills it', () => {
  const classes = buildCatalog(DEFAULT_NODE_CLASSES, {}, () => []);
  const upstream = validatePrompt(
    {
      '1': { class_type: 'EmptyImage', inputs: { width: 0, height: 64, batch_size: 1, color: 0 } },
      '3': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
    },
    { protocol: '0.3', classes },
  );
  assert.equal(upstream.ok, false);
  assert.equal(!upstream.ok && upstream.error.details, '');
  const own = validatePrompt(
    { '3': { class_type: 'SaveImage', inputs: { filename_prefix: 'x' } } },
    { protocol: '0.3', classes },
  );
  assert.equal(!own.ok && own.error.details, 'Required input is missing: images');
});

test('behaviour words parse, including busy N, and unknown words are refused', () => {
  assert.deepEqual(parseWord('busy 3'), { kind: 'busy', n: 3 });
  assert.deepEqual(parseWord('OOM'), { kind: 'oom' });
  assert.throws(() => parseWord('explode'), /unknown simulator behaviour word/);
});

test('the preview store forgets the oldest previews beyond its limit', async () => {
  const { PreviewStore } = await import('../simulator/images.js');
  const store = new PreviewStore(2);
  store.put('/t/a.png', Buffer.from('a'));
  store.put('/t/b.png', Buffer.from('b'));
  store.put('/t/c.png', Buffer.from('c'));
  assert.equal(store.get('/t/a.png'), undefined);
  assert.equal(String(store.get('/t/b.png')), 'b');
  assert.equal(String(store.get('/t/c.png')), 'c');
});
