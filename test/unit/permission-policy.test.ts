/**
 * The permission policy, table-tested: every role against every method class (written out here,
 * not read from the policy, so a changed grant fails), ownership of the targeted jobs, rush, and
 * the sentences a refusal says.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { API_INPUTS, type ApiMethod } from '../../shared/api.js';
import { METHOD_CLASSES, ROLES, type MethodClass, type Role } from '../../shared/people.js';
import { METHOD_CLASS, mayUse, permission } from '../../shared/permissions.js';

/** The brief's roles: a=all, o=own jobs only, -=no. Columns in METHOD_CLASSES order. */
const EXPECTED: Readonly<Record<Role, string>> = {
  //        read import jobActions priority rush moveToTop workstations templates farm settings exports approvals releases people
  artist: 'a a o o - o - - - - - - - -',
  operator: 'a a a a a a a a a a a - - -',
  lead: 'a - - - - - - - - - a a a -',
  admin: 'a a a a a a a a a a a a a a',
};
const WORD = { a: 'all', o: 'own', '-': 'no' } as const;

test('every role against every method class: all, own jobs only, or no', () => {
  for (const role of ROLES) {
    const row = (EXPECTED[role].split(' ') as (keyof typeof WORD)[]).map((c) => WORD[c]);
    assert.equal(row.length, METHOD_CLASSES.length);
    for (const [i, cls] of METHOD_CLASSES.entries()) assert.equal(mayUse(role, cls), row[i], `${role} × ${cls}`);
  }
});

test('every contract method has a class, and the policy answers each one for each role', () => {
  for (const method of Object.keys(API_INPUTS) as ApiMethod[]) {
    const cls: MethodClass = METHOD_CLASS[method];
    assert.ok(METHOD_CLASSES.includes(cls), method);
    for (const role of ROLES) {
      const p = permission({ role, method, others: { count: 0, of: 1 } });
      assert.equal(p.allowed, mayUse(role, cls) !== 'no', `${role} ${method}`);
      if (!p.allowed) assert.match(p.sentence, new RegExp(`^${role}s cannot `));
    }
  }
});

const cases: { name: string; req: Parameters<typeof permission>[0]; sentence: string | null }[] = [
  {
    name: 'an artist cancels their own job',
    req: { role: 'artist', method: 'jobs.cancel', others: { count: 0, of: 3 } },
    sentence: null,
  },
  {
    name: "an artist cancels another's job",
    req: { role: 'artist', method: 'jobs.cancel', others: { count: 1, of: 1 } },
    sentence: 'artists cannot cancel jobs imported by others (that job was imported by someone else).',
  },
  {
    name: 'an artist cancels a mixed selection: refused whole, naming how many',
    req: { role: 'artist', method: 'jobs.cancel', others: { count: 2, of: 5 } },
    sentence: 'artists cannot cancel jobs imported by others (2 of the 5 jobs were imported by someone else).',
  },
  {
    name: 'an artist bumps their own job to high',
    req: { role: 'artist', method: 'jobs.bump', others: { count: 0, of: 1 }, priority: 'high' },
    sentence: null,
  },
  {
    name: 'an artist bumps their own job to rush',
    req: { role: 'artist', method: 'jobs.bump', others: { count: 0, of: 1 }, priority: 'rush' },
    sentence: 'artists cannot make jobs rush (up to high).',
  },
  {
    name: 'an artist undoes into rush',
    req: { role: 'artist', method: 'jobs.restoreOrder', others: { count: 0, of: 1 }, priority: 'rush' },
    sentence: 'artists cannot make jobs rush (up to high).',
  },
  {
    name: "an artist moves another's job to the top",
    req: { role: 'artist', method: 'jobs.moveToTop', others: { count: 1, of: 1 } },
    sentence: 'artists cannot reorder jobs imported by others (that job was imported by someone else).',
  },
  {
    name: "an operator cancels anyone's jobs",
    req: { role: 'operator', method: 'jobs.cancel', others: { count: 5, of: 5 } },
    sentence: null,
  },
  {
    name: 'an operator makes a job rush',
    req: { role: 'operator', method: 'jobs.bump', others: { count: 1, of: 1 }, priority: 'rush' },
    sentence: null,
  },
  {
    name: 'a lead cancels',
    req: { role: 'lead', method: 'jobs.cancel', others: { count: 0, of: 1 } },
    sentence: 'leads cannot act on jobs.',
  },
  {
    name: 'an operator exports (postmortem run logs are theirs)',
    req: { role: 'operator', method: 'export.runlog' },
    sentence: null,
  },
  {
    name: 'an artist exports',
    req: { role: 'artist', method: 'export.ledger' },
    sentence: 'artists cannot export run logs or ledgers.',
  },
  {
    name: 'an artist pauses the farm',
    req: { role: 'artist', method: 'farm.pause' },
    sentence: 'artists cannot pause, stop or resume the farm.',
  },
  {
    name: 'an operator adds a person',
    req: { role: 'operator', method: 'users.add' },
    sentence: 'operators cannot manage people and roles.',
  },
  { name: 'a lead approves', req: { role: 'lead', method: 'assets.approve' }, sentence: null },
  { name: 'an admin does anything', req: { role: 'admin', method: 'users.add' }, sentence: null },
];

for (const c of cases) {
  test(`policy: ${c.name}`, () => {
    const p = permission(c.req);
    if (c.sentence === null) assert.deepEqual(p, { allowed: true });
    else assert.deepEqual(p, { allowed: false, sentence: c.sentence });
  });
}
