/**
 * The page's own-jobs rule (renderer/lib/own-jobs.ts), table-tested against the policy's grants:
 * an artist is offered an action on the jobs they imported only; an operator, an admin and the solo
 * operator on every job; a lead's missing class is the class flag's business, not this rule's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { METHOD_CLASSES, type Role, type SessionView } from '../../shared/people.js';
import { mayUse } from '../../shared/permissions.js';
import { notYoursHint, othersLeftAlone, ownOnly, ownSplit } from '../../renderer/lib/own-jobs.js';
import { refusalHint } from '../../renderer/lib/permissions.js';

const session = (role: Role, name = 'mira', solo = false): SessionView => ({
  name,
  role,
  solo,
  may: Object.fromEntries(METHOD_CLASSES.map((c) => [c, mayUse(role, c)])) as SessionView['may'],
});
const jobs = [{ importedBy: 'mira' }, { importedBy: 'otto' }, { importedBy: 'mira' }, { importedBy: 'local' }];

test('an artist may act on her own jobs only: the split names hers and counts the others', () => {
  for (const action of ['cancel', 'hold', 'retry', 'newTake', 'bump', 'moveToTop'] as const) {
    assert.equal(ownOnly(session('artist'), action), true, action);
    assert.deepEqual(ownSplit(session('artist'), action, jobs), { mine: [jobs[0], jobs[2]], others: 2 }, action);
  }
});

test('operators, admins, the solo operator and an unknown session are not limited to their own jobs', () => {
  for (const s of [session('operator'), session('admin'), session('admin', 'local', true), null]) {
    assert.equal(ownSplit(s, 'cancel', jobs), null, s?.role ?? 'unknown');
  }
  // A lead may not act on jobs at all: the class flag hides the action; this rule does not apply.
  assert.equal(ownOnly(session('lead'), 'cancel'), false);
});

test('the words: why an action is not offered, what a mixed selection leaves alone, why a class is disabled', () => {
  assert.equal(
    notYoursHint(session('artist'), 'cancel'),
    'Imported by someone else: artists may cancel only the jobs they imported.',
  );
  assert.equal(
    notYoursHint(session('artist'), 'newTake'),
    'Imported by someone else: artists may make new takes of only the jobs they imported.',
  );
  assert.equal(othersLeftAlone(4, 7), '4 of the 7 selected jobs were imported by others and are left alone.');
  assert.equal(othersLeftAlone(1, 2), '1 of the 2 selected jobs was imported by others and is left alone.');
  assert.equal(
    refusalHint(session('artist'), 'templates'),
    'Your role (artist) cannot register templates: operators and admins can.',
  );
  assert.equal(
    refusalHint(session('operator'), 'people'),
    'Your role (operator) cannot manage people and roles: admins can.',
  );
  assert.equal(
    refusalHint(session('artist'), 'exports'),
    'Your role (artist) cannot export run logs or ledgers: operators, leads and admins can.',
  );
  assert.equal(refusalHint(session('operator'), 'templates'), undefined);
  assert.equal(refusalHint(null, 'templates'), undefined, 'until the session is known nothing is disabled');
});
