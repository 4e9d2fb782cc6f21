/**
 * The PostgreSQL store's synchronous bridge across processes and a hung server: a transaction waits
 * for another engine's transaction to commit before it reads (the write lock, as SQLite's BEGIN
 * IMMEDIATE), and a call the server does not answer in time is given up as an unreachable database
 * without wedging the store.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { databaseFault } from '../../electron/engine/store/database.js';
import { openPostgresDb } from '../../electron/engine/store/postgres/postgres-db.js';
import { REPO } from '../helpers/engine.js';
import { type PostgresCluster, startPostgresCluster } from '../helpers/postgres-cluster.js';
import { waitUntil } from '../helpers/wait.js';

let cluster: PostgresCluster;
before(async () => {
  cluster = await startPostgresCluster();
});
after(() => cluster?.close());

test("a transaction waits for another process's open transaction and then reads what it committed", {
  timeout: 120_000,
}, async () => {
  const url = cluster.createDatabase('bridge_lock');
  const db = openPostgresDb(url);
  try {
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(REPO, 'test/helpers/postgres-lock-holder.ts'), url, '1500'],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await waitUntil(() => out.includes('locked'), {
        what: 'the other process to hold its transaction open',
        timeoutMs: 30_000,
        detail: () => err,
      });
      // Without the write lock this would read before the other transaction commits and see nothing.
      const seen = db.transaction(() => db.one<{ c: number }>('SELECT COUNT(*) AS c FROM t')?.c);
      assert.equal(seen, 1, 'the transaction began after the other one committed and sees its row');
      assert.equal(await exited, 0, err);
      assert.match(out, /committed/);
    } finally {
      child.kill('SIGKILL');
    }
  } finally {
    db.close();
  }
});

test('a call the server does not answer in time fails as an unreachable database, and the next call works', {
  timeout: 60_000,
}, () => {
  // The bound is the statement's plus the connect's: 1 s + 1 s here.
  const db = openPostgresDb(cluster.createDatabase('bridge_timeout'), { callTimeoutMs: 1000, connectTimeoutMs: 1000 });
  try {
    let err: unknown = null;
    try {
      db.one('SELECT pg_sleep(8)');
    } catch (e) {
      err = e;
    }
    assert.match((err as Error)?.message ?? '', /did not answer within 2 s/);
    assert.equal(databaseFault(err)?.kind, 'database_unreachable');
    assert.deepEqual(db.one('SELECT 1 AS ok'), { ok: 1 }, 'a fresh connection answers');
  } finally {
    db.close();
  }
});
