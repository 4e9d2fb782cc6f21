import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobFilterSchema, type JobFilter } from '../../shared/api.js';
import { onlyTyped, parseQueueParams, queueParamsOf, type AddressQuery } from '../../renderer/lib/queue-address.js';
import { DEFAULT_STATES, QUEUE_PRESETS } from '../../renderer/lib/queue-views.js';

const q = (filter: JobFilter, sort: AddressQuery['sort'] = 'queue', descending = false): AddressQuery => ({
  filter,
  sort,
  descending,
});
const roundTrip = (a: AddressQuery) => parseQueueParams(queueParamsOf(a));

/** One value for every field of the contract's filter: a field added there without a value here fails the test below. */
const EVERY_FIELD: Required<JobFilter> = {
  states: ['queued', 'held'],
  project: 'Moonfall & Sons',
  episode: 'ep101',
  sequence: 'sh01',
  shot: 'sh010_a',
  stage: 'keyframe',
  projectPrefix: 'Moon',
  episodePrefix: 'ep1',
  shotPrefix: 'sh0',
  priority: 'rush',
  instanceId: 'gpu-01',
  importedBy: 'mira',
  blocked: true,
  search: 'a=b?c#d, e/f',
};

test('every field of the filter, a sort and its order come back from the address as they went in', () => {
  assert.deepEqual(
    Object.keys(EVERY_FIELD).sort(),
    Object.keys(jobFilterSchema.shape).sort(),
    'the test covers every filter field',
  );
  const full = q(EVERY_FIELD, 'shot', true);
  const back = roundTrip(full);
  assert.deepEqual(back, { query: full, dropped: [] });
  for (const [k, v] of Object.entries(EVERY_FIELD)) {
    const one = q({ states: [...DEFAULT_STATES], [k]: v });
    assert.deepEqual(roundTrip(one).query, one, k);
  }
  for (const sort of ['queue', 'updated', 'enqueued', 'priority'] as const)
    assert.deepEqual(roundTrip(q({ states: [...DEFAULT_STATES] }, sort, true)).query.sort, sort);
});

test('a preset is named by its id, the default view (Active, dispatch order) is an empty address, hand-picked states are listed', () => {
  assert.equal(queueParamsOf(q({ states: [...DEFAULT_STATES] })), '');
  assert.deepEqual(parseQueueParams('').query, q({ states: [...DEFAULT_STATES] }));
  for (const p of QUEUE_PRESETS.slice(1)) {
    assert.equal(queueParamsOf(q({ states: [...p.states] })), `view=${p.id}`);
    assert.deepEqual(parseQueueParams(`view=${p.id}`).query.filter.states, [...p.states]);
  }
  assert.equal(queueParamsOf(q({})), 'view=all', 'no states at all is the All view, not the default');
  assert.equal(queueParamsOf(q({ states: ['queued', 'held'], search: 'sh01' })), 'states=queued%2Cheld&q=sh01');
  assert.equal(
    queueParamsOf(q({ states: [...DEFAULT_STATES], search: '  ', project: '' })),
    '',
    'empty fields are no filter',
  );
  assert.equal(queueParamsOf(q({ states: [...DEFAULT_STATES], blocked: false })), '');
  assert.equal(
    parseQueueParams('q=sh01&project=Moonfall').query.filter.states?.length,
    DEFAULT_STATES.length,
    'a link without states shows Active',
  );
});

test('a malformed or unknown parameter is dropped, the rest of the address still applies', () => {
  const cases: [string, string[]][] = [
    ['states=queued,exploded', ['states']],
    ['view=nowhere', ['view']],
    ['priority=urgent', ['priority']],
    ['blocked=maybe', ['blocked']],
    ['sort=colour', ['sort']],
    ['order=sideways', ['order']],
    ['colour=red', ['colour']],
    [`q=${'x'.repeat(201)}`, ['q']],
    ['project=A&project=B', ['project']],
  ];
  for (const [bad, dropped] of cases) {
    const parsed = parseQueueParams(`${bad}&episode=ep101`);
    assert.deepEqual(parsed.dropped, dropped, bad);
    assert.equal(parsed.query.filter.episode, 'ep101', bad);
    assert.ok(jobFilterSchema.safeParse(parsed.query.filter).success, `${bad}: what is kept fits the contract`);
  }
  assert.equal(
    parseQueueParams('project=A&project=B').query.filter.project,
    'A',
    'the first of a repeated parameter counts',
  );
  assert.deepEqual(
    parseQueueParams('project=&q=').query,
    q({ states: [...DEFAULT_STATES] }),
    'an empty value is no filter',
  );
  assert.deepEqual(parseQueueParams('%E0%A4%A&q=ok').query.filter.search, 'ok', 'a broken escape does not throw');
  assert.deepEqual(parseQueueParams('?view=done').query.filter.states, ['completed'], 'a leading ? is read');
  assert.equal(
    parseQueueParams('view=done&states=held').query.filter.states?.join(),
    'held',
    'hand-picked states win over a preset',
  );
});

test('a run of typed text (search, prefixes) is told apart from a preset, a pick or a sort', () => {
  const base = q({ states: [...DEFAULT_STATES] });
  assert.equal(onlyTyped(base, q({ states: [...DEFAULT_STATES], search: 'sh0' })), true);
  assert.equal(
    onlyTyped(
      q({ states: [...DEFAULT_STATES], search: 'sh0' }),
      q({ states: [...DEFAULT_STATES], search: 'sh01', projectPrefix: 'Mo' }),
    ),
    true,
  );
  assert.equal(onlyTyped(base, q({ states: ['completed'] })), false);
  assert.equal(onlyTyped(base, q({ states: [...DEFAULT_STATES], project: 'Moonfall' })), false);
  assert.equal(onlyTyped(base, q({ states: [...DEFAULT_STATES] }, 'shot')), false);
});
