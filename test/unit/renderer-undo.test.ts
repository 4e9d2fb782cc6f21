import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JobView } from '../../shared/domain.js';
import type { JobState } from '../../shared/job-states.js';
import { narrowed, undoableNow, undoFor } from '../../renderer/lib/undo.js';

const job = (id: string, state: JobState, over: Partial<JobView> = {}): JobView =>
  ({ id, state, priority: 'normal', rank: 0, ...over }) as JobView;
const map = (...jobs: JobView[]) => Object.fromEntries(jobs.map((j) => [j.id, j]));

test('each action is undone by its opposite, worked out from the jobs as they were', () => {
  const before = [job('a', 'queued'), job('b', 'pending', { priority: 'low', rank: -3 }), job('c', 'running')];
  assert.deepEqual(undoFor('hold', before, ['a', 'b']), { kind: 'release', ids: ['a', 'b'] });
  assert.deepEqual(undoFor('release', [job('a', 'held')], ['a']), { kind: 'hold', ids: ['a'] });
  assert.deepEqual(undoFor('bump', before, ['a', 'b']), {
    kind: 'restoreOrder',
    ids: ['a', 'b'],
    order: [
      { id: 'a', priority: 'normal', rank: 0 },
      { id: 'b', priority: 'low', rank: -3 },
    ],
  });
  assert.equal(undoFor('moveToTop', before, ['b'])?.kind, 'restoreOrder');
  // Only the jobs that had not started come back from a cancel; the interrupted render does not.
  assert.deepEqual(undoFor('cancel', before, ['a', 'b', 'c']), { kind: 'uncancel', ids: ['a', 'b'] });
  assert.equal(undoFor('cancel', [job('c', 'running')], ['c']), null, 'a cancel of renders only has no undo');
  assert.equal(undoFor('retry', [job('f', 'failed_final')], ['f']), null);
  assert.equal(undoFor('newTake', [job('d', 'completed')], ['d']), null);
  assert.equal(undoFor('hold', before, []), null, 'nothing changed, nothing to undo');
});

test('an undo stays possible while some of its jobs are still where the action put them', () => {
  const plan = undoFor('hold', [job('a', 'queued'), job('b', 'queued')], ['a', 'b'])!;
  assert.deepEqual(undoableNow(plan, map(job('a', 'held'), job('b', 'held'))), ['a', 'b']);
  assert.deepEqual(undoableNow(plan, map(job('a', 'held'), job('b', 'queued'))), ['a'], 'b was released meanwhile');
  assert.deepEqual(undoableNow(plan, map(job('a', 'queued'), job('b', 'cancelled'))), []);
  const cancel = undoFor('cancel', [job('a', 'queued')], ['a'])!;
  assert.deepEqual(undoableNow(cancel, map(job('a', 'cancelled'))), ['a']);
  assert.deepEqual(undoableNow(cancel, map(job('a', 'queued'))), [], 'retried since: nothing to take back');
  const order = undoFor('bump', [job('a', 'queued'), job('b', 'queued')], ['a', 'b'])!;
  assert.deepEqual(
    undoableNow(order, map(job('a', 'running'), job('b', 'queued'))),
    ['b'],
    'a running job keeps its order',
  );
  assert.deepEqual(narrowed(order, ['b']), {
    kind: 'restoreOrder',
    ids: ['b'],
    order: [{ id: 'b', priority: 'normal', rank: 0 }],
  });
});
