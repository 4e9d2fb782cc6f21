/** What an empty queue says (renderer/lib/queue-views.ts): the truth about the farm, not just the preset. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JOB_STATES, OPEN_STATES, type JobState } from '../../shared/job-states.js';
import { emptyQueueWords } from '../../renderer/lib/queue-views.js';

const counts = (some: Partial<Record<JobState, number>>): Record<JobState, number> =>
  Object.fromEntries(JOB_STATES.map((s) => [s, some[s] ?? 0])) as Record<JobState, number>;

test('a search that matches nothing in Active says how many queued jobs it hides, not that nothing is waiting', () => {
  const w = emptyQueueWords({ states: OPEN_STATES, search: 'nosuchshot' }, counts({ queued: 135, completed: 2000 }));
  assert.equal(w.title, 'No jobs match');
  assert.equal(w.detail, '135 jobs in Active; the search or filters hide them all.');
  assert.equal(w.hidden, 135);
});

test('Active with no filter and nothing open says nothing is waiting or rendering, with the farm total at studio scale', () => {
  const w = emptyQueueWords({ states: OPEN_STATES }, counts({ completed: 123456 }));
  assert.equal(w.title, 'Nothing is waiting or rendering');
  assert.equal(w.detail, '123,456 jobs on this farm; none in this view.');
  assert.equal(w.hidden, 0);
});

test('a filter over a preset that is empty anyway blames the preset, not the filter', () => {
  const w = emptyQueueWords({ states: ['cancelled'], projectPrefix: 'moon' }, counts({ queued: 4 }));
  assert.equal(w.title, 'No jobs match');
  assert.equal(w.hidden, 0);
});
