/**
 * `db migrate --to`'s checks before anything is written, and the copy order: a URL that is not
 * PostgreSQL's, the server's refusals (a wrong password, an unknown user, a missing database, no
 * answer) as words and error kinds the CLI maps to its exit codes, never with the password; and
 * tables copied after the tables they reference.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exitCodeFor } from '../../electron/cli/exit-codes.js';
import { copiedTables, NOT_COPIED, parentsFirst, schemaTables } from '../../electron/engine/store/farm-copy.js';
import { checkPostgresUrl, connectFailure, dialectFunctions } from '../../electron/engine/store/postgres/farm-move.js';
import { CONNECTION, PostgresStoreError } from '../../electron/engine/store/postgres/postgres-error.js';
import { ShotfarmError } from '../../shared/errors.js';

const refused = (fn: () => unknown, code: string, words: RegExp) =>
  assert.throws(fn, (err: unknown) => err instanceof ShotfarmError && err.code === code && words.test(err.message));

test('a destination that is not a PostgreSQL URL is refused in words, its password never shown', () => {
  assert.equal(checkPostgresUrl('postgres://farm@db.lan:5432/shotfarm').hostname, 'db.lan');
  assert.equal(checkPostgresUrl('postgresql://farm@db.lan/shotfarm').pathname, '/shotfarm');
  assert.equal(
    checkPostgresUrl('postgres:///shotfarm?host=/var/run/postgresql').pathname,
    '/shotfarm',
    'a Unix socket',
  );
  refused(
    () => checkPostgresUrl('mysql://root:hunter2@db/farm'),
    'bad_input',
    /^mysql:\/\/root:\*\*\*@db\/farm is not a PostgreSQL URL .*use export-db/,
  );
  refused(
    () => checkPostgresUrl('/srv/farm.sqlite'),
    'bad_input',
    /is not a URL\. Give the PostgreSQL database as postgres:\/\/USER@HOST:5432\/DATABASE/,
  );
  refused(() => checkPostgresUrl('postgres://farm@db.lan'), 'bad_input', /names no host or no database/);
});

test("the server's refusals become words a person can act on, with the CLI's exit codes", () => {
  const url = new URL('postgres://farm:s3cret@db.lan:6543/shotfarm');
  const cases: [PostgresStoreError, number, RegExp][] = [
    [
      new PostgresStoreError('password authentication failed for user "farm"', '28P01'),
      3,
      /refused the password of farm\. Check the password \(PGPASSWORD, ~\/\.pgpass or the URL\)/,
    ],
    [new PostgresStoreError('role "farm" does not exist', '28000'), 3, /did not let farm in .*pg_hba\.conf/],
    [
      new PostgresStoreError('database "shotfarm" does not exist', '3D000'),
      3,
      /The database "shotfarm" does not exist on db\.lan:6543\. Create it first/,
    ],
    [
      new PostgresStoreError('connect ECONNREFUSED 10.0.0.5:6543', CONNECTION),
      6,
      /Cannot reach PostgreSQL at db\.lan:6543 .*Check the host and port/,
    ],
    [new PostgresStoreError('the database system is starting up', '57P03'), 6, /Cannot reach PostgreSQL/],
  ];
  for (const [err, exit, words] of cases) {
    const e = connectFailure(err, url);
    assert.match(e.message, words);
    assert.doesNotMatch(e.message, /s3cret/);
    assert.equal(exitCodeFor(e.code), exit, e.message);
  }
});

test('tables are copied after the tables they reference; a cycle is refused; every schema table is copied or excluded', () => {
  const order = copiedTables().map((t) => t.name);
  for (const t of copiedTables())
    for (const p of t.parents) assert.ok(order.indexOf(p) < order.indexOf(t.name), `${p} before ${t.name}`);
  assert.ok(order.indexOf('jobs') < order.indexOf('attempts') && order.indexOf('attempts') < order.indexOf('assets'));
  assert.deepEqual(
    schemaTables().filter((t) => !order.includes(t) && !(t in NOT_COPIED)),
    [],
  );
  const shape = (name: string, parents: string[]) => ({ name, columns: ['id'], key: ['id'], parents });
  assert.deepEqual(
    parentsFirst([shape('c', ['b']), shape('b', ['a']), shape('a', [])]).map((s) => s.name),
    ['a', 'b', 'c'],
  );
  assert.throws(() => parentsFirst([shape('a', ['b']), shape('b', ['a'])]), /form a cycle/);
});

test("a replaced farm's functions are dropped by their signatures (SQLite's scalar functions, the trigger's)", () => {
  const fns = dialectFunctions();
  for (const f of [
    'instr(text, text)',
    'json_extract(text, text)',
    'max(bigint, bigint)',
    'min(bigint, bigint)',
    'instances_new_base_forgets_key()',
  ]) {
    assert.ok(fns.includes(f), `${f} in ${fns.join(' ')}`);
  }
});
