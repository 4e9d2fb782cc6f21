/**
 * The PostgreSQL store's synchronous bridge against SQLite, side by side, on one small table: a
 * SELECT by primary key, an INSERT on its own (one commit each), INSERTs in one transaction, and an
 * empty transaction (the bridge's BEGIN + write lock + COMMIT). PostgreSQL is a throwaway server
 * on loopback with fsync on (as SQLite's synchronous=FULL); the `pg` driver called asynchronously
 * (awaiting each query) is the third column: what the bridge costs over the driver itself. Each
 * figure is the best of `--rounds` rounds (default 3): on a shared machine other work only slows a round.
 */
import pg from 'pg';
import { join } from 'node:path';
import { systemClock } from '../../electron/engine/clock.js';
import { openDatabase } from '../../electron/engine/store/database.js';
import { openPostgresDb } from '../../electron/engine/store/postgres/postgres-db.js';
import type { SqlDb } from '../../electron/engine/store/sql-db.js';
import { startPostgresCluster } from '../helpers/postgres-cluster.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { info, numberFlags, type Benchmark } from './lib/types.js';

const TABLE = `CREATE TABLE bench_kv (id TEXT PRIMARY KEY, n INTEGER NOT NULL, body TEXT NOT NULL)`;
const SELECT = 'SELECT id, n, body FROM bench_kv WHERE id = ?';
const INSERT = 'INSERT INTO bench_kv (id, n, body) VALUES (?, ?, ?)';
const BODY = 'x'.repeat(200);

interface Rates {
  selectPerS: number;
  insertPerS: number;
  insertInTxPerS: number;
  emptyTxPerS: number;
}

function perSecond(n: number, fn: (i: number) => void): number {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn(i);
  return n / ((performance.now() - t0) / 1000);
}

async function perSecondAsync(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  return n / ((performance.now() - t0) / 1000);
}

type Counts = { selects: number; inserts: number; rows: number; txs: number; rounds: number };

/** The best of each figure over the rounds: the machine's other work only ever slows a round down. */
function best(rounds: Rates[]): Rates {
  const pick = (k: keyof Rates) => Math.max(...rounds.map((r) => r[k]));
  return {
    selectPerS: pick('selectPerS'),
    insertPerS: pick('insertPerS'),
    insertInTxPerS: pick('insertInTxPerS'),
    emptyTxPerS: pick('emptyTxPerS'),
  };
}

function measure(db: SqlDb, n: Counts): Rates {
  db.exec(TABLE);
  db.transaction(() => {
    for (let i = 0; i < n.rows; i++) db.run(INSERT, `seed-${i}`, i, BODY);
  });
  const rounds: Rates[] = [];
  for (let r = 0; r < n.rounds; r++) {
    const selectPerS = perSecond(n.selects, (i) => db.one(SELECT, `seed-${(i * 7919) % n.rows}`));
    const insertPerS = perSecond(n.inserts, (i) => db.run(INSERT, `one-${r}-${i}`, i, BODY));
    const t0 = performance.now();
    db.transaction(() => {
      for (let i = 0; i < n.rows; i++) db.run(INSERT, `tx-${r}-${i}`, i, BODY);
    });
    const insertInTxPerS = n.rows / ((performance.now() - t0) / 1000);
    const emptyTxPerS = perSecond(n.txs, () => db.transaction(() => undefined));
    rounds.push({ selectPerS, insertPerS, insertInTxPerS, emptyTxPerS });
  }
  return best(rounds);
}

async function measureAsyncDriver(url: string, n: Counts): Promise<Rates> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const sel = 'SELECT id, n, body FROM bench_kv WHERE id = $1';
    const ins = 'INSERT INTO bench_kv (id, n, body) VALUES ($1, $2, $3)';
    const rounds: Rates[] = [];
    for (let r = 0; r < n.rounds; r++) {
      const selectPerS = await perSecondAsync(n.selects, (i) =>
        c.query({ name: 'sel', text: sel, values: [`seed-${(i * 7919) % n.rows}`] }),
      );
      const insertPerS = await perSecondAsync(n.inserts, (i) =>
        c.query({ name: 'ins', text: ins, values: [`async-one-${r}-${i}`, i, BODY] }),
      );
      const t0 = performance.now();
      await c.query('BEGIN');
      for (let i = 0; i < n.rows; i++)
        await c.query({ name: 'ins', text: ins, values: [`async-tx-${r}-${i}`, i, BODY] });
      await c.query('COMMIT');
      const insertInTxPerS = n.rows / ((performance.now() - t0) / 1000);
      const emptyTxPerS = await perSecondAsync(n.txs, async () => {
        await c.query('BEGIN; SELECT pg_advisory_xact_lock(1)');
        await c.query('COMMIT');
      });
      rounds.push({ selectPerS, insertPerS, insertInTxPerS, emptyTxPerS });
    }
    return best(rounds);
  } finally {
    await c.end();
  }
}

export const postgresBridgeBench: Benchmark = {
  name: 'pg-bridge',
  description: 'PostgreSQL synchronous bridge vs SQLite: round trips per second (loopback, fsync on)',
  async run(args) {
    const n = numberFlags(args, {
      selects: [5000, 1000],
      inserts: [500, 100],
      rows: [5000, 1000],
      txs: [1000, 200],
      rounds: [3, 1],
    });
    const dir = makeTempDir('shotfarm-bench-pg-');
    const cluster = await startPostgresCluster({ durable: true });
    try {
      const sqlite = openDatabase(join(dir.path, 'bench.sqlite'), systemClock);
      const lite = measure(sqlite, n);
      sqlite.close();
      args.log('SQLite measured');
      const url = cluster.createDatabase('bench');
      const pgDb = openPostgresDb(url);
      const bridge = measure(pgDb, n);
      const pings = Math.max(...Array.from({ length: n.rounds }, () => perSecond(n.selects, () => pgDb.ping())));
      pgDb.close();
      args.log('PostgreSQL through the bridge measured');
      const driver = await measureAsyncDriver(url, n);
      args.log('PostgreSQL through the async driver measured');
      const row = (what: string, k: keyof Rates) =>
        info(
          `${what}/s: SQLite · PostgreSQL bridge · pg async`,
          `${Math.round(lite[k])} · ${Math.round(bridge[k])} · ${Math.round(driver[k])}`,
          bridge[k],
        );
      return {
        figures: [
          row('SELECT by primary key', 'selectPerS'),
          row('INSERT, one commit each', 'insertPerS'),
          row(`INSERT in one transaction of ${n.rows}`, 'insertInTxPerS'),
          row('empty transaction (BEGIN, write lock, COMMIT)', 'emptyTxPerS'),
          info(
            'bridge alone/s (worker thread and back, no database)',
            `${Math.round(pings)} (${(1e6 / pings).toFixed(0)} µs each)`,
            pings,
          ),
        ],
        details: {
          counts: n,
          best: `of ${n.rounds} rounds`,
          sqlite: lite,
          postgresBridge: bridge,
          postgresAsyncDriver: driver,
          bridgePingPerS: pings,
        },
      };
    } finally {
      cluster.close();
      dir.cleanup();
    }
  },
};
