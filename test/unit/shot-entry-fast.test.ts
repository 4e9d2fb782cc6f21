/**
 * The hand-written check of the common shot shape (intake/shot-entry-fast.ts) may only ever say
 * "valid" where the schema says valid with the same data: everything else goes to the schema, so
 * row errors keep the schema's words. Checked on hand-picked edges and on the intake fuzz's shots.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../electron/engine/clock.js';
import { plainShotEntry } from '../../electron/engine/intake/shot-entry-fast.js';
import { shotEntrySchema } from '../../shared/shot-list-schema.js';
import { fuzzCases } from '../helpers/shot-list-fuzz.js';

/** Asserts the fast check agrees with the schema on `shot`; returns whether it took it itself. */
function agrees(shot: unknown, what: string): boolean {
  const fast = plainShotEntry(shot);
  const schema = shotEntrySchema.safeParse(shot);
  if (fast === null) return false;
  assert.ok(schema.success, `the fast check took a shot the schema refuses (${what}): ${JSON.stringify(shot)}`);
  assert.deepEqual(fast, schema.data, `the fast check's shot differs from the schema's (${what})`);
  return true;
}

const COMMON: unknown[] = [
  { id: 'sh010', stage: 'keyframe', template: 'txt2img', priority: 'normal', parameters: { prompt: 'a cat' } },
  { id: 'sh020', stage: 'keyframe', template: 'txt2img', take: 2, seed: 7, due: 'tomorrow', description: 'wide' },
  { id: 'sq01_sh030', stage: 'comp', template: 'x', parameters: { steps: 20, cfg: 6.5, hires: true } },
  { id: '森', stage: 'épisode', template: 't', inputs: { image: 'plates/a.png' } },
  {
    id: 'sh040',
    priority: 'rush',
    stages: [
      { stage: 'keyframe', template: 'keyframe-img2img', parameters: { prompt: 'p' }, take: 3, seed: 0 },
      { stage: 'motion', template: 'motion-i2v', depends_on: 'keyframe', priority: 'low', due: '2026-12-05T09:00' },
    ],
  },
  // Valid to the schema: the reader itself then asks for the missing template.
  { id: 'sh050', stage: 'keyframe' },
];

const EDGES: unknown[] = [
  null,
  [],
  'sh010',
  {},
  { id: ' sh010', stage: 'keyframe', template: 't' },
  { id: 'sh010\u2028', stage: 'keyframe', template: 't' },
  { id: 'sh010', stage: 'keyframe ', template: 't' },
  { id: 'sh010', stage: 'keyframe', template: ' t' },
  { id: 'sh010', stage: 'keyframe', template: '' },
  { id: 'sh010', stage: 'keyframe', template: 'a/b' },
  { id: 'sh010', stage: 'keyframe', template: 'x'.repeat(121) },
  { id: 'sh010', stage: 'keyframe', template: '..' },
  { id: 'CON', stage: 'keyframe', template: 't' },
  { id: 'sh010.', stage: 'keyframe', template: 't' },
  { id: 'x'.repeat(81), stage: 'keyframe', template: 't' },
  { id: '森'.repeat(60), stage: 'keyframe', template: 't' },
  { id: 'sh010', stage: 'keyframe', template: 't', take: 0 },
  { id: 'sh010', stage: 'keyframe', template: 't', take: 1.5 },
  { id: 'sh010', stage: 'keyframe', template: 't', take: 1_000_001 },
  { id: 'sh010', stage: 'keyframe', template: 't', seed: -1 },
  { id: 'sh010', stage: 'keyframe', template: 't', seed: 2 ** 60 },
  { id: 'sh010', stage: 'keyframe', template: 't', priority: 'urgent' },
  { id: 'sh010', stage: 'keyframe', template: 't', parameters: { steps: Number.POSITIVE_INFINITY } },
  { id: 'sh010', stage: 'keyframe', template: 't', parameters: { steps: null } },
  { id: 'sh010', stage: 'keyframe', template: 't', parameters: { nested: { a: 1 } } },
  { id: 'sh010', stage: 'keyframe', template: 't', parameters: [] },
  { id: 'sh010', stage: 'keyframe', template: 't', inputs: { image: '' } },
  { id: 'sh010', stage: 'keyframe', template: 't', hooks: [] },
  { id: 'sh010', stages: [] },
  { id: 'sh010', stages: [{ stage: 'keyframe' }] },
  { id: 'sh010', stages: [{ stage: 'keyframe', template: 't', extra: 1 }] },
  { id: 'sh010', stages: [{ stage: 'keyframe', template: 't', depends_on: 'a:b' }] },
  { stage: 'keyframe', template: 't' },
  JSON.parse('{"id":"sh010","stage":"keyframe","template":"t","parameters":{"__proto__":{"x":1}}}'),
  JSON.parse('{"id":"sh010","stage":"keyframe","template":"t","__proto__":{}}'),
];

test('the fast shot check takes the common shot shapes, with the same data as the schema', () => {
  for (const [i, shot] of COMMON.entries())
    assert.ok(agrees(shot, `common ${i}`), `common shot ${i} went to the schema`);
});

test('the fast shot check never takes a shot the schema refuses or would change', () => {
  for (const [i, shot] of EDGES.entries()) assert.equal(agrees(shot, `edge ${i}`), false, `edge ${i} was taken`);
});

test('the fast shot check agrees with the schema on every shot of the intake fuzz', () => {
  let taken = 0;
  let shots = 0;
  for (const c of fuzzCases(seededRandom(20261204), 400)) {
    if (c.kind !== 'json') continue;
    const list = JSON.parse(c.content) as { shots?: unknown };
    if (!Array.isArray(list.shots)) continue;
    for (const [i, shot] of list.shots.entries()) {
      shots++;
      if (agrees(shot, `fuzz case ${c.n}, shot ${i}`)) taken++;
    }
  }
  // Both sides were exercised: shots the fast check took, and shots it left to the schema.
  assert.ok(taken > 0 && taken < shots, `${taken} of ${shots} taken`);
});
