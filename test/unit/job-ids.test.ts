// Job ids are stored forever and double as ComfyUI prompt ids: the hand-written UUIDv5 must give
// exactly the ids the `uuid` package gave when they were first stored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { v5 } from 'uuid';
import { JOB_ID_NAMESPACE, jobId, uuidV5 } from '../../electron/engine/ids.js';

test('job ids are the same RFC 4122 v5 ids the uuid package computes, for ASCII and non-ASCII names', () => {
  for (const name of [
    '',
    'a',
    'Bench\u001fep1\u001fsh000001\u001fkeyframe\u001f1',
    'Épisode\u001f镜头 12\u001fkadras',
    'x'.repeat(300),
    // Names written into the id's scratch buffer and names too long for it (hashed from a copy).
    '😀'.repeat(100),
    'é'.repeat(341),
    'é'.repeat(342),
    'x'.repeat(2000),
    `${'镜'.repeat(500)}\u001fend`,
  ]) {
    assert.equal(uuidV5(name), v5(name, JOB_ID_NAMESPACE));
  }
});

test('a job id depends on every part of its key, take included', () => {
  const key = { project: 'P', episode: 'E', shot: 'S', stage: 'keyframe', take: 1 };
  const ids = new Set([
    jobId(key),
    jobId({ ...key, take: 2 }),
    jobId({ ...key, stage: 'motion' }),
    jobId({ ...key, shot: 'S2' }),
  ]);
  assert.equal(ids.size, 4);
  assert.match(jobId(key), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});
