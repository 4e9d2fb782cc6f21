/**
 * The store's connection seam (store/sql-db.ts) behaves alike on SQLite and on PostgreSQL (through
 * the synchronous bridge, against a throwaway server): one definition of each case, run over both
 * adapters — the start of the store's conformance suite.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { systemClock } from '../../electron/engine/clock.js';
import { openDatabase } from '../../electron/engine/store/database.js';
import { openPostgresDb } from '../../electron/engine/store/postgres/postgres-db.js';
import type { SqlDb } from '../../electron/engine/store/sql-db.js';
import { type PostgresCluster, startPostgresCluster } from '../helpers/postgres-cluster.js';
import { makeTempDir } from '../helpers/temp-dir.js';

interface Shot {
  id: string;
  n: number;
  note: string | null;
}

const TABLE = 'CREATE TABLE seam_shots (id TEXT PRIMARY KEY, n INTEGER NOT NULL, note TEXT)';

let cluster: PostgresCluster;
let databases = 0;
const dir = makeTempDir('shotfarm-seam-');

const ADAPTERS: { name: string; open: () => SqlDb }[] = [
  { name: 'SQLite', open: () => openDatabase(join(dir.path, `seam-${++databases}.sqlite`), systemClock) },
  { name: 'PostgreSQL', open: () => openPostgresDb(cluster.createDatabase(`seam_${++databases}`)) },
];

before(async () => {
  cluster = await startPostgresCluster();
});
after(() => {
  cluster?.close();
  dir.cleanup();
});

function withTable(open: () => SqlDb, fn: (db: SqlDb) => void): void {
  const db = open();
  try {
    db.exec(TABLE);
    fn(db);
  } finally {
    db.close();
  }
}

for (const adapter of ADAPTERS) {
  describe(`the ${adapter.name} store's connection`, { timeout: 120_000 }, () => {
    test('one, all and run bind ? and @name parameters and give integers as numbers', () => {
      withTable(adapter.open, (db) => {
        assert.equal(db.run('INSERT INTO seam_shots (id, n, note) VALUES (?, ?, ?)', 'sh010', 1, null).changes, 1);
        assert.equal(
          db.run('INSERT INTO seam_shots (id, n, note) VALUES (@id, @n, @note)', {
            id: 'sh020',
            n: 2,
            note: "it's @here ?",
          }).changes,
          1,
        );
        assert.deepEqual(db.one<Shot>('SELECT id, n, note FROM seam_shots WHERE id = ?', 'sh020'), {
          id: 'sh020',
          n: 2,
          note: "it's @here ?",
        });
        assert.equal(db.one<Shot>('SELECT id FROM seam_shots WHERE id = ?', 'nope'), undefined);
        assert.deepEqual(db.all<Shot>('SELECT id, n FROM seam_shots WHERE n >= @min ORDER BY n', { min: 1 }), [
          { id: 'sh010', n: 1 },
          { id: 'sh020', n: 2 },
        ]);
        // COUNT(*) is a bigint in PostgreSQL: the store still gets a number.
        assert.deepEqual(db.one('SELECT COUNT(*) AS c, SUM(n) AS s FROM seam_shots'), { c: 2, s: 3 });
        assert.equal(db.run('UPDATE seam_shots SET n = n + 10 WHERE n < ?', 100).changes, 2);
        assert.deepEqual(db.all('DELETE FROM seam_shots WHERE id = ? RETURNING id', 'sh010'), [{ id: 'sh010' }]);
      });
    });

    test('each streams every row in order, and a loop left early frees the connection', () => {
      withTable(adapter.open, (db) => {
        db.transaction(() => {
          for (let i = 0; i < 1234; i++)
            db.run('INSERT INTO seam_shots (id, n) VALUES (?, ?)', `s${String(i).padStart(5, '0')}`, i);
        });
        let seen = 0;
        let last = -1;
        for (const row of db.each<Shot>('SELECT id, n FROM seam_shots WHERE n >= ? ORDER BY n', 0)) {
          assert.equal(row.n, last + 1);
          last = row.n;
          seen++;
        }
        assert.equal(seen, 1234, 'more rows than one fetch');
        for (const row of db.each<Shot>('SELECT id, n FROM seam_shots ORDER BY n')) if (row.n === 3) break;
        assert.equal(
          db.run('DELETE FROM seam_shots WHERE n < ?', 10).changes,
          10,
          'the connection takes writes after a loop left early',
        );
      });
    });

    test('a transaction commits what fn wrote and returns its value; a throw rolls all of it back', () => {
      withTable(adapter.open, (db) => {
        const value = db.transaction(() => {
          db.run('INSERT INTO seam_shots (id, n) VALUES (?, ?)', 'a', 1);
          return db.one<{ c: number }>('SELECT COUNT(*) AS c FROM seam_shots')?.c;
        });
        assert.equal(value, 1, 'fn reads its own write');
        assert.throws(
          () =>
            db.transaction(() => {
              db.run('INSERT INTO seam_shots (id, n) VALUES (?, ?)', 'b', 2);
              db.run('UPDATE seam_shots SET n = 99 WHERE id = ?', 'a');
              throw new Error('changed my mind');
            }),
          /changed my mind/,
        );
        assert.deepEqual(
          db.all('SELECT id, n FROM seam_shots ORDER BY id'),
          [{ id: 'a', n: 1 }],
          'nothing of the failed transaction stays',
        );
      });
    });

    test('a read transaction returns its reads, tells it is open, and inside a transaction is part of it', () => {
      withTable(adapter.open, (db) => {
        db.run('INSERT INTO seam_shots (id, n) VALUES (?, ?)', 'a', 1);
        assert.equal(db.inTransaction, false);
        const seen = db.readTransaction(() => ({
          open: db.inTransaction,
          n: db.one<{ c: number }>('SELECT COUNT(*) AS c FROM seam_shots')?.c,
        }));
        assert.deepEqual(seen, { open: true, n: 1 });
        const inner = db.transaction(() => {
          db.run('INSERT INTO seam_shots (id, n) VALUES (?, ?)', 'b', 2);
          return db.readTransaction(() => db.one<{ c: number }>('SELECT COUNT(*) AS c FROM seam_shots')?.c);
        });
        assert.equal(inner, 2, "it sees the enclosing transaction's write");
        assert.equal(db.inTransaction, false);
      });
    });

    test('a failing statement rolls its transaction back and the connection goes on', () => {
      withTable(adapter.open, (db) => {
        db.run('INSERT INTO seam_shots (id, n) VALUES (?, ?)', 'a', 1);
        assert.throws(
          () =>
            db.transaction(() => {
              db.run('INSERT INTO seam_shots (id, n) VALUES (?, ?)', 'b', 2);
              db.run('INSERT INTO seam_shots (id, n) VALUES (?, ?)', 'a', 3); // primary key taken
            }),
          (err: Error) => /UNIQUE|duplicate key/i.test(err.message),
        );
        assert.deepEqual(db.all('SELECT id FROM seam_shots ORDER BY id'), [{ id: 'a' }]);
        db.run('INSERT INTO seam_shots (id, n) VALUES (?, ?)', 'c', 4);
        assert.equal(db.one<{ c: number }>('SELECT COUNT(*) AS c FROM seam_shots')?.c, 2);
      });
    });

    test('a nested transaction is a savepoint: its rollback keeps the outer work', () => {
      withTable(adapter.open, (db) => {
        db.transaction(() => {
          db.run('INSERT INTO seam_shots (id, n) VALUES (?, ?)', 'outer', 1);
          assert.throws(
            () =>
              db.transaction(() => {
                db.run('INSERT INTO seam_shots (id, n) VALUES (?, ?)', 'inner', 2);
                throw new Error('inner fails');
              }),
            /inner fails/,
          );
          db.transaction(() => db.run('INSERT INTO seam_shots (id, n) VALUES (?, ?)', 'inner-ok', 3));
        });
        assert.deepEqual(db.all('SELECT id FROM seam_shots ORDER BY n'), [{ id: 'outer' }, { id: 'inner-ok' }]);
      });
    });
  });
}
