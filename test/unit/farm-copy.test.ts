/**
 * The farm copy between two stores (here two SQLite stores in memory: the same code runs into
 * PostgreSQL in the db-migrate test): every row of every table arrives, wider tables and batch
 * edges included; a destination whose count comes out different is refused, naming the table.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../electron/engine/clock.js';
import { openDatabase } from '../../electron/engine/store/database.js';
import { copiedTables, copyFarm } from '../../electron/engine/store/farm-copy.js';
import type { SqlDb } from '../../electron/engine/store/sql-db.js';
import { ShotfarmError } from '../../shared/errors.js';

const clock = new ManualClock();

function seeded(): SqlDb {
  const db = openDatabase(':memory:', clock);
  for (let i = 0; i < 1234; i++)
    db.run('INSERT INTO settings (key, value_json, updated_at) VALUES (?, ?, ?)', `k${i}`, JSON.stringify({ i }), i);
  db.run("INSERT INTO projects (name, created_at) VALUES ('Moonfall', 1), ('Sunrise', 2)");
  return db;
}

test('every row of every table arrives, across batch edges', () => {
  const src = seeded();
  const dst = openDatabase(':memory:', clock);
  try {
    const counts = dst.transaction(() => copyFarm(src, dst, { batchRows: 100 }));
    assert.equal(counts.length, copiedTables().length);
    assert.deepEqual(
      counts.find((c) => c.table === 'settings'),
      { table: 'settings', source: 1234, destination: 1234 },
    );
    assert.deepEqual(dst.all('SELECT * FROM settings ORDER BY key'), src.all('SELECT * FROM settings ORDER BY key'));
    assert.deepEqual(dst.all('SELECT * FROM projects ORDER BY id'), src.all('SELECT * FROM projects ORDER BY id'));
  } finally {
    src.close();
    dst.close();
  }
});

test('a table whose count differs after the copy is refused with its name, and the transaction rolls back', () => {
  const src = seeded();
  const dst = openDatabase(':memory:', clock);
  try {
    dst.run("INSERT INTO settings (key, value_json, updated_at) VALUES ('already-here', '1', 0)");
    assert.throws(
      () => dst.transaction(() => copyFarm(src, dst)),
      (err: unknown) =>
        err instanceof ShotfarmError &&
        err.code === 'storage' &&
        /settings: 1234 in the source, 1235 copied/.test(err.message),
    );
    assert.equal(dst.one<{ n: number }>('SELECT COUNT(*) AS n FROM settings')?.n, 1, 'rolled back');
    assert.equal(dst.one<{ n: number }>('SELECT COUNT(*) AS n FROM projects')?.n, 0);
  } finally {
    src.close();
    dst.close();
  }
});
