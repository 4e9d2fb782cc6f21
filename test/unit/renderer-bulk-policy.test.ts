import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JobView } from '../../shared/domain.js';
import type { JobState } from '../../shared/job-states.js';
import { ASK_ABOVE, confirmationFor, stopFarmConfirmation } from '../../renderer/lib/bulk-policy.js';

const job = (n: number, state: JobState, instanceId: string | null = null): JobView =>
  ({ id: `j${n}`, shot: `sh${n}`, stage: 'keyframe', take: 1, state, instanceId }) as JobView;
const jobs = (n: number, state: JobState) => Array.from({ length: n }, (_, i) => job(i, state));
const names = (id: string | null) => (id ? `gpu-${id}` : null);

test('which actions ask first: many jobs, or any running job for a cancel; hold, release, bump and move to top never', () => {
  const cases: [string, Parameters<typeof confirmationFor>[0], JobView[], boolean][] = [
    ['a few queued jobs cancel at once', 'cancel', jobs(ASK_ABOVE, 'queued'), false],
    ['more than a few ask', 'cancel', jobs(ASK_ABOVE + 1, 'queued'), true],
    ['one running job asks', 'cancel', [job(1, 'running', '01')], true],
    ['a few retries go at once', 'retry', jobs(3, 'failed_final'), false],
    ['many retries ask', 'retry', jobs(40, 'failed_final'), true],
    ['many new takes ask', 'newTake', jobs(40, 'completed'), true],
    ['a thousand holds never ask (they undo)', 'hold', jobs(1000, 'queued'), false],
    ['nor releases', 'release', jobs(1000, 'held'), false],
    ['nor bumps', 'bump', jobs(1000, 'queued'), false],
    ['nor moves to the top', 'moveToTop', jobs(1000, 'queued'), false],
    ['nothing selected asks nothing', 'cancel', [], false],
  ];
  for (const [what, action, list, asks] of cases)
    assert.equal(confirmationFor(action, list, names) !== null, asks, what);
});

test('the cancel question says how many jobs, how many render now, names those renders, and what can be undone', () => {
  const list = [
    ...jobs(287, 'queued'),
    ...Array.from({ length: 12 }, (_, i) => job(300 + i, 'failed_final')),
    job(900, 'running', '01'),
    job(901, 'running', '02'),
    job(902, 'running', '03'),
    job(903, 'running', '04'),
  ];
  const c = confirmationFor('cancel', list, names)!;
  assert.equal(c.summary, 'Cancel 303 jobs: 4 are rendering now and will be interrupted.');
  assert.deepEqual(c.details, [
    'Interrupted (this cannot be undone):',
    'sh900 · keyframe · take 1 on gpu-01',
    'sh901 · keyframe · take 1 on gpu-02',
    'sh902 · keyframe · take 1 on gpu-03',
    'sh903 · keyframe · take 1 on gpu-04',
    'Selected: 287 queued, 12 failed, 4 running.',
    'The 287 jobs that had not started can be un-cancelled from the notice that follows.',
  ]);
  assert.equal(c.confirmLabel, 'Cancel 303 jobs');
  assert.equal(c.danger, true);
  assert.equal(
    confirmationFor('cancel', [job(1, 'running', '01')], names)?.summary,
    'Cancel sh1 · keyframe · take 1: it is rendering now and will be interrupted.',
  );
  assert.equal(confirmationFor('cancel', jobs(9, 'queued'), names)?.summary, 'Cancel 9 jobs: none is rendering now.');
  const many = confirmationFor(
    'cancel',
    Array.from({ length: 12 }, (_, i) => job(i, 'running', '01')),
    names,
  )!;
  assert.equal(many.details.filter((d) => d.startsWith('sh')).length, 8, 'eight renders are named…');
  assert.ok(many.details.includes('…and 4 more renders'), '…the rest counted');
});

test('stop farm always asks, saying what renders now and that Pause lets it finish', () => {
  const idle = stopFarmConfirmation([], 0, names);
  assert.equal(idle.summary, 'Stop the farm: nothing is rendering now. No new prompts are sent until you resume it.');
  const busy = stopFarmConfirmation([job(1, 'running', '01')], 3, names);
  assert.match(
    busy.summary,
    /^Stop the farm: 3 prompts are rendering now and will be interrupted and put back in the queue\./,
  );
  assert.deepEqual(busy.details, [
    'Interrupted and requeued:',
    'sh1 · keyframe · take 1 on gpu-01',
    '…of 3 in all',
    'To let running prompts finish instead, use Pause dispatch.',
  ]);
});

test('a prompt next on its workstation (prefetch: sent, not started) is taken off, not interrupted, and listed apart from the interrupted', () => {
  const at = (n: number, phase: 'posted' | 'running'): JobView =>
    ({ ...job(n, 'running', '01'), attempt: { id: `a${n}`, phase, promptNumber: n, startedAt: null } }) as JobView;
  const stop = stopFarmConfirmation([at(1, 'running'), at(2, 'posted')], 2, names);
  assert.equal(
    stop.summary,
    'Stop the farm: 1 prompt is rendering now and will be interrupted; 1 prompt waiting on its workstation will be taken off; all go back in the queue. No new prompts are sent until you resume it.',
  );
  assert.deepEqual(stop.details, [
    'Interrupted and requeued:',
    'sh1 · keyframe · take 1 on gpu-01',
    'Next, not started (taken off and requeued):',
    'sh2 · keyframe · take 1 on gpu-01',
    'To let running prompts finish instead, use Pause dispatch.',
  ]);
  // Only when every running job was seen: a partial page says the plain count.
  assert.match(
    stopFarmConfirmation([at(1, 'running'), at(2, 'posted')], 5, names).summary,
    /^Stop the farm: 5 prompts are rendering now/,
  );
  // Three GPUs, each with one rendering and one next: 3 interrupted, the 3 next listed apart.
  const six = [at(1, 'running'), at(2, 'posted'), at(3, 'running'), at(4, 'posted'), at(5, 'running'), at(6, 'posted')];
  const cancel = confirmationFor('cancel', six, names);
  assert.equal(
    cancel?.summary,
    'Cancel 6 jobs: 3 are rendering now and will be interrupted. 3 are next on workstations, not started, and will be taken off.',
  );
  assert.deepEqual(cancel?.details.slice(0, 8), [
    'Interrupted (this cannot be undone):',
    'sh1 · keyframe · take 1 on gpu-01',
    'sh3 · keyframe · take 1 on gpu-01',
    'sh5 · keyframe · take 1 on gpu-01',
    'Next, not started (taken off, nothing interrupted):',
    'sh2 · keyframe · take 1 on gpu-01',
    'sh4 · keyframe · take 1 on gpu-01',
    'sh6 · keyframe · take 1 on gpu-01',
  ]);
  assert.ok(cancel?.details.includes('Selected: 3 running, 3 next.'), 'the selection by state tells next from running');
  assert.equal(
    confirmationFor('cancel', [at(2, 'posted'), at(3, 'posted')], names)?.summary,
    'Cancel 2 jobs: none is rendering now. 2 are next on workstations, not started, and will be taken off.',
  );
});
