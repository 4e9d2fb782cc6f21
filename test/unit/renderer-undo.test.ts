import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JobView } from '../../shared/domain.js';
import type { JobState } from '../../shared/job-states.js';
import type { SessionView } from '../../shared/people.js';
import { narrowed, undoableNow, undoFor, undosOf, undoToSend } from '../../renderer/lib/undo.js';

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

const session = (name: string, role: 'artist' | 'operator'): SessionView =>
  ({
    name,
    role,
    solo: false,
    may: { jobActions: role === 'artist' ? 'own' : 'all', priority: role === 'artist' ? 'own' : 'all' },
  }) as SessionView;

test("an undo is only its doer's, and of the role rule of the action it undoes: an artist undoes only her own jobs", () => {
  const jobs = map(
    job('m1', 'cancelled', { importedBy: 'mira' }),
    job('m2', 'cancelled', { importedBy: 'mira' }),
    job('o1', 'cancelled', { importedBy: 'otto' }),
  );
  const cancel = { undo: { kind: 'uncancel' as const, ids: ['m1', 'm2', 'o1'] }, by: 'mira' };
  assert.deepEqual(undoToSend(cancel, session('mira', 'artist'), jobs), {
    kind: 'send',
    plan: { kind: 'uncancel', ids: ['m1', 'm2'] },
    othersLeft: 1,
  });
  assert.deepEqual(undoToSend({ ...cancel, by: 'otto' }, session('otto', 'operator'), jobs), {
    kind: 'send',
    plan: { kind: 'uncancel', ids: ['m1', 'm2', 'o1'] },
    othersLeft: 0,
  });
  assert.deepEqual(undoToSend(cancel, session('ana', 'artist'), jobs), {
    kind: 'refused',
    why: "that was mira's action: only mira may undo it.",
  });
  assert.deepEqual(undoToSend(cancel, session('otto', 'operator'), jobs).kind, 'refused', 'an operator neither');
  const theirs = { undo: { kind: 'uncancel' as const, ids: ['o1'] }, by: 'mira' };
  assert.deepEqual(undoToSend(theirs, session('mira', 'artist'), jobs), {
    kind: 'refused',
    why: 'Imported by someone else: artists may uncancel only the jobs they imported.',
  });
  assert.equal(undoToSend(cancel, session('mira', 'artist'), map(job('m1', 'queued'))).kind, 'gone');
  const bump = {
    undo: {
      kind: 'restoreOrder' as const,
      ids: ['m1', 'o1'],
      order: [
        { id: 'm1', priority: 'low' as const, rank: 0 },
        { id: 'o1', priority: 'low' as const, rank: 1 },
      ],
    },
    by: 'mira',
  };
  const queued = map(job('m1', 'queued', { importedBy: 'mira' }), job('o1', 'queued', { importedBy: 'otto' }));
  assert.deepEqual(undoToSend(bump, session('mira', 'artist'), queued), {
    kind: 'send',
    plan: { kind: 'restoreOrder', ids: ['m1'], order: [{ id: 'm1', priority: 'low', rank: 0 }] },
    othersLeft: 1,
  });
});

test('signing in as another person (or out) leaves only undos of the person signed in', () => {
  const entries = [
    { id: 1, by: 'otto' },
    { id: 2, by: 'mira' },
    { id: 3, by: null },
  ];
  assert.deepEqual(
    undosOf(entries, session('mira', 'artist')).map((e) => e.id),
    [2, 3],
  );
  assert.deepEqual(
    undosOf(entries, null).map((e) => e.id),
    [3],
  );
});

test('what an undo still applies to is worked out once per jobs map, and again when a job changed', () => {
  const plan = undoFor('hold', [job('a', 'queued'), job('b', 'queued')], ['a', 'b'])!;
  const jobs = map(job('a', 'held'), job('b', 'held'));
  const first = undoableNow(plan, jobs);
  assert.equal(undoableNow(plan, jobs), first, 'the same answer for the same map (another store change)');
  const changed = { ...jobs, b: job('b', 'queued') };
  assert.deepEqual(undoableNow(plan, changed), ['a'], 'a new map: worked out again');
});
