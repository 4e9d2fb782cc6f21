import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashOf, parseHash } from '../../renderer/lib/paths.js';
import { presetOf, QUEUE_PRESETS, DEFAULT_STATES } from '../../renderer/lib/queue-views.js';
import {
  deleteView,
  readViews,
  saveView,
  SAVED_VIEWS_KEY,
  type KeyValueStore,
} from '../../renderer/lib/saved-views.js';

const ID = '7b25dd8f-f972-53da-a568-bbd57df430e3';

test('the address names the view and the job whose drawer is open', () => {
  assert.deepEqual(parseHash(`#/queue/job/${ID}`), { view: 'queue', jobId: ID, params: '' });
  assert.deepEqual(parseHash(`#/queue/job/${ID.toUpperCase()}`), { view: 'queue', jobId: ID, params: '' });
  assert.deepEqual(parseHash('#/ledger'), { view: 'ledger', jobId: null, params: '' });
  assert.deepEqual(
    parseHash(`#/ledger/job/${ID}`),
    { view: 'ledger', jobId: null, params: '' },
    'only the queue has the drawer',
  );
  assert.deepEqual(parseHash('#/queue/job/not-an-id'), { view: 'queue', jobId: null, params: '' });
  assert.deepEqual(parseHash('#/nowhere'), { view: 'queue', jobId: null, params: '' });
  assert.deepEqual(parseHash(''), { view: 'queue', jobId: null, params: '' });
  assert.equal(hashOf({ view: 'queue', jobId: ID, params: '' }), `#/queue/job/${ID}`);
  assert.equal(hashOf({ view: 'failures', jobId: null, params: '' }), '#/failures');
});

test("the queue's filter rides after a ? in the address, beside the drawer's job; other views carry none", () => {
  assert.deepEqual(parseHash('#/queue?view=failed&q=sh01'), {
    view: 'queue',
    jobId: null,
    params: 'view=failed&q=sh01',
  });
  assert.deepEqual(parseHash(`#/queue/job/${ID}?project=Moonfall`), {
    view: 'queue',
    jobId: ID,
    params: 'project=Moonfall',
  });
  assert.deepEqual(parseHash('#/ledger?project=Moonfall'), { view: 'ledger', jobId: null, params: '' });
  assert.equal(hashOf({ view: 'queue', jobId: ID, params: 'view=done' }), `#/queue/job/${ID}?view=done`);
  assert.equal(hashOf({ view: 'queue', jobId: null, params: 'view=done' }), '#/queue?view=done');
  assert.equal(hashOf({ view: 'timeline', jobId: null, params: 'view=done' }), '#/timeline');
});

test('the default queue view is Active; a preset is recognised whatever the order of its states', () => {
  assert.equal(presetOf(DEFAULT_STATES)?.id, 'active');
  assert.ok(!DEFAULT_STATES.includes('completed'), 'Done rows are not in the default view');
  assert.equal(presetOf(['timeout_kill', 'failed_final'])?.id, 'failed');
  assert.equal(presetOf([])?.id, 'all');
  assert.equal(presetOf(undefined)?.id, 'all');
  assert.equal(presetOf(['queued']), null);
  assert.equal(new Set(QUEUE_PRESETS.flatMap((p) => p.states)).size, 9, 'every state is in one preset');
});

test('saved views keep a filter and order under a name, newest first; what does not fit the contract is dropped', () => {
  const data = new Map<string, string>();
  const store: KeyValueStore = { getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
  assert.deepEqual(readViews(store), []);
  saveView(store, {
    name: 'rush on ep101',
    filter: { episode: 'ep101', priority: 'rush' },
    sort: 'queue',
    descending: false,
  });
  saveView(store, { name: 'failures', filter: { states: ['failed_final'] }, sort: 'updated', descending: true });
  saveView(store, {
    name: 'rush on ep101',
    filter: { episode: 'ep102', priority: 'rush' },
    sort: 'queue',
    descending: false,
  });
  assert.deepEqual(
    readViews(store).map((v) => [v.name, v.filter.episode ?? null]),
    [
      ['rush on ep101', 'ep102'],
      ['failures', null],
    ],
  );
  deleteView(store, 'failures');
  assert.deepEqual(
    readViews(store).map((v) => v.name),
    ['rush on ep101'],
  );
  data.set(
    SAVED_VIEWS_KEY,
    JSON.stringify([
      { name: 'old', filter: { colour: 'red' }, sort: 'queue', descending: false },
      { name: 'ok', filter: {}, sort: 'shot', descending: false },
    ]),
  );
  assert.deepEqual(
    readViews(store).map((v) => v.name),
    ['ok'],
    'an entry the filter schema refuses is dropped',
  );
  data.set(SAVED_VIEWS_KEY, '{not json');
  assert.deepEqual(readViews(store), []);
});
