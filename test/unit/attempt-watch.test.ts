import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FollowEvent } from '../../electron/engine/comfy/ws-events.js';
import { AttemptWatch } from '../../electron/engine/pools/comfy-lan/attempt-watch.js';
import { jobPreview } from '../../electron/engine/queries/job-preview.js';
import type { JobRow } from '../../electron/engine/store/job-rows.js';
import { median } from '../../electron/engine/queries/run-estimates.js';

const ctx = { connection: 1, clientId: 'c', inRun: true };
const workflow = { 1: {}, 2: {}, 3: {}, 4: {}, 5: {} };
const ev = (e: object) => ({ ...ctx, ...e }) as FollowEvent;
const executing = (node: string) => ev({ type: 'executing', data: { node, prompt_id: 'p' } });
const preview = (bytes: number[], format: 'jpeg' | 'png' | 'unknown' = 'jpeg') =>
  ev({ type: 'preview', format, bytes: Uint8Array.from(bytes), promptId: null, metadata: null });

test('node k of N: cached nodes count as done, each node started counts once, a new execution starts over', () => {
  const w = new AttemptWatch();
  w.observe('job', 'a1', workflow, ev({ type: 'execution_start', data: { prompt_id: 'p', timestamp: 1 } }), 0);
  assert.equal(w.nodes('a1'), null, 'nothing reached yet');
  w.observe(
    'job',
    'a1',
    workflow,
    ev({ type: 'execution_cached', data: { nodes: ['1', '2'], prompt_id: 'p', timestamp: 1 } }),
    0,
  );
  w.observe('job', 'a1', workflow, executing('3'), 0);
  assert.deepEqual(w.nodes('a1'), { nodesDone: 3, nodesTotal: 5 });
  w.observe('job', 'a1', workflow, executing('3'), 0);
  w.observe('job', 'a1', workflow, executing('4'), 0);
  assert.deepEqual(w.nodes('a1'), { nodesDone: 4, nodesTotal: 5 });
  w.observe('job', 'a1', workflow, ev({ type: 'execution_start', data: { prompt_id: 'p', timestamp: 2 } }), 0);
  assert.equal(w.nodes('a1'), null);
  w.end('a1');
  assert.equal(w.nodes('a1'), null);
});

test('the latest preview of a job is kept (a copy), unknown formats are ignored, and it goes with its attempt', () => {
  const w = new AttemptWatch();
  const frame = Uint8Array.from([9, 1, 2, 3, 9]);
  w.observe(
    'job',
    'a1',
    workflow,
    ev({ type: 'preview', format: 'png', bytes: frame.subarray(1, 4), promptId: null, metadata: null }),
    10,
  );
  frame.fill(0);
  const p1 = w.preview('job');
  assert.deepEqual([...(p1?.bytes ?? [])], [1, 2, 3], 'a copy, not a view of the socket buffer');
  assert.equal(p1?.mediaType, 'image/png');
  w.observe('job', 'a1', workflow, preview([4, 5], 'unknown'), 11);
  assert.equal(w.preview('job')?.seq, p1?.seq, 'an unknown format is not shown');
  w.observe('job', 'a1', workflow, preview([6, 7]), 12);
  const p2 = w.preview('job');
  assert.ok(p2 && p1 && p2.seq > p1.seq);
  assert.equal(p2?.at, 12);

  const row = { id: 'job', state: 'running', current_attempt_id: 'a1' } as JobRow;
  const answer = jobPreview(row, w, undefined);
  assert.equal(answer?.data, Buffer.from([6, 7]).toString('base64'));
  assert.equal(jobPreview(row, w, p2?.seq)?.data, null, 'nothing newer than what the client has: no bytes');
  assert.equal(
    jobPreview({ ...row, current_attempt_id: 'a2' }, w, undefined),
    null,
    "another attempt's image is not this one's",
  );
  assert.equal(jobPreview({ ...row, state: 'completed' }, w, undefined), null);
  w.end('a1');
  assert.equal(w.preview('job'), null);
});

test('the median of run times', () => {
  assert.equal(median([]), null);
  assert.equal(median([5]), 5);
  assert.equal(median([9, 1, 5]), 5);
  assert.equal(median([4, 1, 3, 2]), 2.5);
});
