/**
 * When the queue says "Loading jobs…" instead of an empty state (renderer/lib/queue-views.ts,
 * emptyMayBeStale): only while its new answer is on the way and the counts say the view should have
 * rows, or still say the farm is empty — never for a view a search empties, so it does not flicker.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JOB_STATES, OPEN_STATES, type JobState } from '../../shared/job-states.js';
import { emptyMayBeStale } from '../../renderer/lib/queue-views.js';

const counts = (some: Partial<Record<JobState, number>>): Record<JobState, number> =>
  Object.fromEntries(JOB_STATES.map((s) => [s, some[s] ?? 0])) as Record<JobState, number>;

test('an answer on the way while the counts promise rows in the view: loading', () => {
  assert.equal(emptyMayBeStale({ states: OPEN_STATES }, counts({ queued: 1640 }), true), true);
});

test('counts that still say the farm is empty while events say the list changed: loading', () => {
  assert.equal(emptyMayBeStale({ states: OPEN_STATES }, counts({}), true), true);
  assert.equal(emptyMayBeStale({ states: OPEN_STATES }, null, true), true);
});

test('no answer on the way: the empty state stands', () => {
  assert.equal(emptyMayBeStale({ states: OPEN_STATES }, counts({ queued: 3 }), false), false);
});

test('a view whose states hold nothing, or a search that hides all, stays empty while other jobs change', () => {
  assert.equal(emptyMayBeStale({ states: ['failed_final'] }, counts({ running: 5, completed: 9 }), true), false);
  assert.equal(emptyMayBeStale({ states: OPEN_STATES, search: 'nosuch' }, counts({ queued: 135 }), true), false);
});
