import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ACTION_STATES,
  actionAllowed,
  BACKLOG_STATES,
  canTransition,
  isWaiting,
  JOB_ACTIONS,
  JOB_STATES,
  NEEDS_OPERATOR_STATES,
  OPEN_STATES,
  TERMINAL_STATES,
  TRANSITIONS,
  WAITING_STATES,
} from '../../shared/job-states.js';

test('a completed job can never change state again', () => {
  assert.deepEqual(TRANSITIONS.completed, []);
  for (const s of JOB_STATES) assert.equal(canTransition('completed', s), false);
});

test('every state named in the transition table is a known state', () => {
  for (const [from, tos] of Object.entries(TRANSITIONS)) {
    assert.ok((JOB_STATES as readonly string[]).includes(from));
    for (const to of tos) assert.ok((JOB_STATES as readonly string[]).includes(to), `${from} → ${to}`);
  }
});

test('only a queued job can start running', () => {
  const into = JOB_STATES.filter((s) => canTransition(s, 'running'));
  assert.deepEqual(into, ['queued']);
});

test('action buttons follow the transition table: cancel and retry only where the move is legal', () => {
  for (const s of ACTION_STATES.cancel) assert.ok(canTransition(s, 'cancelled'), s);
  for (const s of ACTION_STATES.retry) assert.ok(canTransition(s, 'queued'), s);
  for (const s of ACTION_STATES.hold) assert.ok(canTransition(s, 'held'), s);
  assert.equal(actionAllowed('cancel', 'completed'), false);
  assert.equal(actionAllowed('retry', 'failed_final'), true);
  assert.equal(actionAllowed('release', 'queued'), false);
});

test('a new take is offered only once the current take is finished', () => {
  for (const s of ACTION_STATES.newTake) assert.ok(TERMINAL_STATES.includes(s), s);
  assert.equal(JOB_ACTIONS.length, Object.keys(ACTION_STATES).length);
});

test('the named groups of states hold together: open = not terminal, waiting = open but not running, backlog = open and moving on by itself', () => {
  const sorted = (xs: readonly string[]) => [...xs].sort();
  assert.deepEqual(sorted(OPEN_STATES), sorted(JOB_STATES.filter((s) => !TERMINAL_STATES.includes(s))));
  assert.deepEqual(sorted(WAITING_STATES), sorted(OPEN_STATES.filter((s) => s !== 'running')));
  assert.deepEqual(sorted(BACKLOG_STATES), ['failed_retryable', 'pending', 'queued', 'running']);
  assert.ok(
    NEEDS_OPERATOR_STATES.every((s) => s === 'held' || TERMINAL_STATES.includes(s)),
    'only held and the finished states wait for a person',
  );
  for (const s of JOB_STATES) assert.equal(isWaiting(s), (WAITING_STATES as readonly string[]).includes(s), s);
  assert.deepEqual(ACTION_STATES.bump, WAITING_STATES, 'bump and move-to-top apply to what waits');
});
