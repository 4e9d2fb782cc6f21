/**
 * Issue 25: admins manage people in the UI. Over a real `serve`: an admin's token adds a person (the
 * new token answered once, and it signs in), changes their role (counted at the next call), and
 * revokes them (401 at the next call); an operator's token is refused every users method with the
 * policy's sentence; an admin cannot revoke or demote themselves from a page (no lock-out).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../electron/server/server.js';
import type { IssuedToken, PersonView, SessionView } from '../../shared/people.js';
import { makeEngine } from '../helpers/engine.js';
import { addPerson, callAs } from '../helpers/people.js';

test('an admin adds a person, changes their role and revokes them over serve; an operator may not; an admin cannot lock themselves out', async () => {
  const t = await makeEngine({ templates: false });
  const server = await startServer({ engine: t.engine });
  try {
    const admin = await addPerson(t.engine, 'ada', 'admin');
    const operator = await addPerson(t.engine, 'otto', 'operator');

    for (const [method, input] of [
      ['users.list', {}],
      ['users.add', { name: 'eve', role: 'admin' }],
      ['users.revoke', { name: 'ada' }],
    ] as const) {
      const refused = await callAs(server.url, operator, method, input);
      assert.equal(refused.status, 403, method);
      assert.equal(refused.body.error?.message, 'operators cannot manage people and roles.');
    }

    const added = await callAs(server.url, admin, 'users.add', { name: 'mira', role: 'artist' });
    assert.equal(added.status, 200, JSON.stringify(added.body.error));
    const issued = added.body.result as IssuedToken;
    assert.match(issued.token, /^sft_/);
    assert.deepEqual([issued.person.name, issued.person.role], ['mira', 'artist']);
    const who = await callAs(server.url, issued.token, 'session.whoami', {});
    assert.deepEqual(
      [(who.body.result as SessionView).name, (who.body.result as SessionView).role],
      ['mira', 'artist'],
    );
    const list = (await callAs(server.url, admin, 'users.list', {})).body.result as PersonView[];
    assert.deepEqual(list.map((p) => p.name).sort(), ['ada', 'mira', 'otto']);
    assert.ok(!JSON.stringify(list).includes('sft_'), 'the list shows no token');

    assert.equal((await callAs(server.url, admin, 'users.setRole', { name: 'mira', role: 'operator' })).status, 200);
    assert.equal(
      ((await callAs(server.url, issued.token, 'session.whoami', {})).body.result as SessionView).role,
      'operator',
    );

    const self = await callAs(server.url, admin, 'users.revoke', { name: 'ada' });
    assert.equal(self.status, 400);
    assert.match(self.body.error?.message ?? '', /cannot revoke yourself/);
    assert.equal((await callAs(server.url, admin, 'users.setRole', { name: 'ada', role: 'artist' })).status, 400);
    assert.equal((await callAs(server.url, admin, 'session.whoami', {})).status, 200, 'still signed in');

    assert.equal((await callAs(server.url, admin, 'users.revoke', { name: 'mira' })).status, 200);
    assert.equal(
      (await callAs(server.url, issued.token, 'session.whoami', {})).status,
      401,
      'revoked at the next call',
    );
  } finally {
    await server.close();
    await t.close();
  }
});
