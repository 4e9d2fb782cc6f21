/**
 * The PostgreSQL store's failures become the farm's storage holds, with the words SQLite's get
 * (store/database.ts databaseFault, store/storage-failure.ts): a real server stopped mid-use
 * (`pg_ctl stop -m fast`) is "the database is unreachable" — between statements and inside a
 * transaction, which is rolled back and never half-applied — and the same connection object works
 * again once the server is back. A read-only server is a read-only hold; a conflict is run again.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ShotfarmError } from '../../shared/errors.js';
import { databaseFault } from '../../electron/engine/store/database.js';
import { openPostgresDb } from '../../electron/engine/store/postgres/postgres-db.js';
import { PostgresStoreError } from '../../electron/engine/store/postgres/postgres-error.js';
import { storageFailure } from '../../electron/engine/store/storage-failure.js';
import { type PostgresCluster, startPostgresCluster } from '../helpers/postgres-cluster.js';

let cluster: PostgresCluster;
before(async () => {
  cluster = await startPostgresCluster();
});
after(() => cluster?.close());

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  assert.fail('expected a throw');
}

test('a server stopped with pg_ctl stop -m fast is "the database is unreachable", and the store reconnects when it is back', {
  timeout: 120_000,
}, () => {
  const url = cluster.createDatabase('faults_stop');
  const db = openPostgresDb(url, { connectTimeoutMs: 2000 });
  try {
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    db.run('INSERT INTO t (id) VALUES (?)', 1);

    cluster.stop('fast');
    const err = thrown(() => db.run('INSERT INTO t (id) VALUES (?)', 2));
    assert.ok(err instanceof PostgresStoreError, `a PostgresStoreError, got ${String(err)}`);
    const fault = databaseFault(err);
    assert.equal(fault?.kind, 'database_unreachable');
    assert.match(fault?.words ?? '', /^the database is unreachable/);
    const failure = storageFailure(err, 'postgres://shotfarm@127.0.0.1/faults_stop', 'importing shots.csv');
    assert.ok(failure instanceof ShotfarmError);
    assert.equal(failure.code, 'storage');
    assert.equal(failure.retryable, true);
    assert.match(
      failure.message,
      /is unreachable .*importing shots\.csv stored nothing\. Check that the PostgreSQL server runs/,
    );

    // Still down: a new connection is refused, the same fault.
    assert.equal(databaseFault(thrown(() => db.one('SELECT 1 AS ok')))?.kind, 'database_unreachable');

    cluster.start();
    db.run('INSERT INTO t (id) VALUES (?)', 3);
    assert.deepEqual(db.all('SELECT id FROM t ORDER BY id'), [{ id: 1 }, { id: 3 }]);
  } finally {
    db.close();
  }
});

test('a server stopped inside a transaction: the transaction fails as unreachable and none of it is stored', {
  timeout: 120_000,
}, () => {
  const url = cluster.createDatabase('faults_tx');
  const db = openPostgresDb(url, { connectTimeoutMs: 2000 });
  try {
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    let afterStop: unknown = null;
    const err = thrown(() =>
      db.transaction(() => {
        db.run('INSERT INTO t (id) VALUES (?)', 1);
        cluster.stop('fast');
        cluster.start();
        // The server is back, but this transaction's connection is gone: the rest must not run
        // on a new connection outside the transaction.
        try {
          db.run('INSERT INTO t (id) VALUES (?)', 2);
        } catch (e) {
          afterStop = e;
          throw e;
        }
      }),
    );
    assert.equal(databaseFault(afterStop)?.kind, 'database_unreachable', 'the statement after the stop fails');
    assert.equal(databaseFault(err)?.kind, 'database_unreachable');
    assert.deepEqual(db.all('SELECT id FROM t'), [], 'nothing of the transaction was stored');
    db.transaction(() => db.run('INSERT INTO t (id) VALUES (?)', 3));
    assert.deepEqual(db.all('SELECT id FROM t'), [{ id: 3 }], 'the next transaction runs on a fresh connection');
  } finally {
    db.close();
  }
});

test('a read-only server (25006) is a read-only hold; a refused statement is no fault', { timeout: 60_000 }, () => {
  const url = cluster.createDatabase('faults_ro');
  const db = openPostgresDb(url);
  try {
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    db.exec('SET default_transaction_read_only = on');
    const err = thrown(() => db.run('INSERT INTO t (id) VALUES (?)', 1));
    assert.equal((err as PostgresStoreError).code, '25006');
    assert.equal(databaseFault(err)?.kind, 'database_readonly');
    assert.match(
      storageFailure(err, 'farm-db', 'adding a hook')?.message ?? '',
      /read-only \(25006\): adding a hook stored nothing\. Point Shotfarm at the primary/,
    );
    db.exec('SET default_transaction_read_only = off');
    // A constraint or a typo is the statement's own failure: no hold, no storage words.
    db.run('INSERT INTO t (id) VALUES (?)', 1);
    const dup = thrown(() => db.run('INSERT INTO t (id) VALUES (?)', 1));
    assert.equal((dup as PostgresStoreError).code, '23505');
    assert.equal(databaseFault(dup), null);
    assert.equal(storageFailure(dup, 'farm-db', 'adding a hook'), null);
  } finally {
    db.close();
  }
});

test('a transaction rolled back as a serialization failure (40001) runs again; one that keeps failing becomes a busy hold', {
  timeout: 60_000,
}, () => {
  const url = cluster.createDatabase('faults_conflict');
  const db = openPostgresDb(url, { conflictRetries: 2 });
  try {
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    const conflict = "DO $$ BEGIN RAISE EXCEPTION 'could not serialize access' USING ERRCODE = '40001'; END $$";
    let runs = 0;
    db.transaction(() => {
      runs++;
      db.run('INSERT INTO t (id) VALUES (?)', 1);
      if (runs === 1) db.exec(conflict);
    });
    assert.equal(runs, 2, 'run again once');
    assert.deepEqual(db.all('SELECT id FROM t'), [{ id: 1 }], 'stored once');

    runs = 0;
    const err = thrown(() =>
      db.transaction(() => {
        runs++;
        db.exec(conflict);
      }),
    );
    assert.equal(runs, 3, 'the first run and two more');
    assert.equal(databaseFault(err)?.kind, 'database_busy');
  } finally {
    db.close();
  }
});
