/**
 * The bulk-action undo (a toast's Undo, the action bar's ↶ Undo, Ctrl+Z) goes through the same
 * role rule as the action it undoes (docs/studio-farm.md's roles table): an un-cancel is
 * `jobActions`, restoring the order after a bump or a move to the top is `priority`, a release
 * undoes a hold and a hold a release. Two artists, an operator and a lead over a real `serve`: an
 * artist undoes her own action; her undo of another person's jobs, or of a selection touching
 * them, is refused whole with the policy's sentence and changes nothing; an operator may undo
 * anyone's; a lead none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Caller, Role } from '../../shared/people.js';
import { startServer } from '../../electron/server/server.js';
import { makeEngine, RESOURCES } from '../helpers/engine.js';
import { addPerson, callAs, threeShotList as shotList, type Answer } from '../helpers/people.js';

test('an undo is refused on jobs the caller may not act on, as the action itself would be; the caller’s own undo works', async (t) => {
  const e = await makeEngine();
  const server = await startServer({ engine: e.engine, importBaseDir: `${RESOURCES}samples` });
  t.after(async () => {
    await server.close();
    await e.close();
  });
  const people: [string, Role][] = [
    ['mira', 'artist'],
    ['ana', 'artist'],
    ['otto', 'operator'],
    ['lea', 'lead'],
  ];
  const token = new Map<string, string>();
  for (const [name, role] of people) token.set(name, await addPerson(e.engine, name, role));
  const jobsOf = new Map<string, string[]>();
  for (const name of ['mira', 'ana']) {
    const caller: Caller = { kind: 'person', name, role: 'artist' };
    const preview = await e.engine.call(
      'import.preview',
      { fileName: `${name}.json`, content: shotList(`ep-${name}`), baseDir: `${RESOURCES}samples` },
      caller,
    );
    jobsOf.set(name, (await e.engine.call('import.commit', { previewId: preview.previewId }, caller)).jobIds);
  }
  const mira = jobsOf.get('mira') as string[];
  const ana = jobsOf.get('ana') as string[];
  const as = (name: string, method: string, input: unknown): Promise<Answer> =>
    callAs(server.url, token.get(name) as string, method, input);
  const states = async (ids: readonly string[]) =>
    (await e.engine.call('jobs.list', {})).rows.filter((j) => ids.includes(j.id)).map((j) => j.state);
  const ok = (a: Answer, what: string) => assert.equal(a.status, 200, `${what}: ${a.body.error?.message ?? ''}`);
  const refused = (a: Answer, sentence: RegExp, what: string) => {
    assert.equal(a.status, 403, what);
    assert.equal(a.body.error?.code, 'forbidden', what);
    assert.match(a.body.error?.message ?? '', sentence, what);
  };

  // Mira cancels her three jobs; Ana's undo of that cancel is refused whole, nothing changes.
  ok(await as('mira', 'jobs.cancel', { ids: mira }), 'mira cancels her own');
  refused(
    await as('ana', 'jobs.uncancel', { ids: mira }),
    /^artists cannot uncancel jobs imported by others \(3 of the 3 jobs were imported by someone else\)\.$/,
    "ana undoes mira's cancel",
  );
  assert.deepEqual(await states(mira), ['cancelled', 'cancelled', 'cancelled']);
  // A lead may not act on jobs at all: nor undo.
  refused(await as('lea', 'jobs.uncancel', { ids: mira }), /^leads cannot act on jobs\.$/, 'the lead undoes');
  // Mira's own undo works.
  ok(await as('mira', 'jobs.uncancel', { ids: mira }), 'mira undoes her cancel');
  assert.deepEqual(await states(mira), ['queued', 'queued', 'queued']);

  // Ana cancels hers; Mira's undo touching both hers and Ana's is refused whole — none of hers is undone either.
  ok(await as('ana', 'jobs.cancel', { ids: ana }), 'ana cancels her own');
  ok(await as('mira', 'jobs.cancel', { ids: [mira[0]] }), 'mira cancels one of hers');
  refused(
    await as('mira', 'jobs.uncancel', { ids: [mira[0], ...ana] }),
    /^artists cannot uncancel jobs imported by others \(3 of the 4 jobs were imported by someone else\)\.$/,
    "mira's undo touching ana's jobs",
  );
  assert.deepEqual(await states([mira[0] as string, ...ana]), ['cancelled', 'cancelled', 'cancelled', 'cancelled']);
  // An operator may undo anyone's cancel (the table gives operators every job).
  ok(await as('otto', 'jobs.uncancel', { ids: ana }), "otto undoes ana's cancel");
  assert.deepEqual(await states(ana), ['queued', 'queued', 'queued']);

  // A bump's undo (restoreOrder) and a hold's undo (release) follow the same rule.
  const before = (await e.engine.call('jobs.list', {})).rows.find((j) => j.id === ana[0]);
  ok(await as('ana', 'jobs.bump', { ids: [ana[0]], priority: 'high' }), 'ana bumps hers');
  refused(
    await as('mira', 'jobs.restoreOrder', {
      jobs: [{ id: ana[0], priority: before?.priority, rank: before?.rank }],
    }),
    /^artists cannot reorder jobs imported by others \(that job was imported by someone else\)\.$/,
    "mira undoes ana's bump",
  );
  assert.equal((await e.engine.call('jobs.get', { id: ana[0] as string })).priority, 'high');
  ok(
    await as('ana', 'jobs.restoreOrder', { jobs: [{ id: ana[0], priority: before?.priority, rank: before?.rank }] }),
    'ana undoes her bump',
  );
  assert.equal((await e.engine.call('jobs.get', { id: ana[0] as string })).priority, before?.priority);
  ok(await as('ana', 'jobs.hold', { ids: ana }), 'ana holds hers');
  refused(
    await as('mira', 'jobs.release', { ids: ana }),
    /^artists cannot release jobs imported by others/,
    "mira undoes ana's hold",
  );
  assert.deepEqual(await states(ana), ['held', 'held', 'held']);
});
