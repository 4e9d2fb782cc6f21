import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { databaseUrlOf } from '../../electron/cli/database-option.js';
import { redactedUrl, storeLabel, storeTarget } from '../../electron/engine/store/store-target.js';

test('without a database URL the farm uses the SQLite file in its data folder', () => {
  assert.deepEqual(storeTarget('/farm'), { kind: 'sqlite', file: join('/farm', 'shotfarm.sqlite') });
  assert.deepEqual(storeTarget('/farm', ''), { kind: 'sqlite', file: join('/farm', 'shotfarm.sqlite') });
});

test('a postgres:// or postgresql:// URL makes the store PostgreSQL', () => {
  for (const url of ['postgres://shotfarm@db:5432/farm', 'postgresql://shotfarm@db/farm?sslmode=verify-full']) {
    assert.deepEqual(storeTarget('/farm', url), { kind: 'postgres', url });
  }
});

test('another URL is refused with what to give, and never shows its password', () => {
  assert.throws(
    () => storeTarget('/farm', 'mysql://ana:secret@db/farm'),
    (err: Error & { code?: string }) => {
      assert.equal(err.code, 'bad_input');
      assert.match(err.message, /starts with mysql:\/\/ rather than postgres:\/\//);
      assert.match(err.message, /--database URL or SHOTFARM_DATABASE_URL/);
      assert.doesNotMatch(err.message, /secret/);
      return true;
    },
  );
  assert.throws(() => storeTarget('/farm', 'db.studio.lan'), /it is not a URL/);
});

test('messages name a PostgreSQL store by its URL with the password hidden', () => {
  assert.equal(redactedUrl('postgres://ana:secret@db:5432/farm'), 'postgres://ana:***@db:5432/farm');
  assert.equal(storeLabel({ kind: 'postgres', url: 'postgres://ana@db/farm' }), 'postgres://ana@db/farm');
  assert.equal(storeLabel({ kind: 'sqlite', file: '/farm/shotfarm.sqlite' }), '/farm/shotfarm.sqlite');
});

test('--database wins over SHOTFARM_DATABASE_URL; an empty value is none', () => {
  const env = { SHOTFARM_DATABASE_URL: 'postgres://env@db/farm' };
  assert.equal(databaseUrlOf('postgres://flag@db/farm', env), 'postgres://flag@db/farm');
  assert.equal(databaseUrlOf(undefined, env), 'postgres://env@db/farm');
  assert.equal(databaseUrlOf(undefined, {}), undefined);
  assert.equal(databaseUrlOf(undefined, { SHOTFARM_DATABASE_URL: ' ' }), undefined);
});
