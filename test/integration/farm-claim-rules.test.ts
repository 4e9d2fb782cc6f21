/**
 * The farm's claim in the database (lock/farm-claim.ts): when a claim's holder counts as alive, a
 * taker refused while it does, and a holder that finds its claim taken by a live engine stops.
 * The processes are described (pid, host, files, clock), not started: the real-process cases are
 * in integration/engine-lock-deleted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { type SqlDb, sqliteSqlDb } from '../../electron/engine/store/sql-db.js';
import { ShotfarmError } from '../../shared/errors.js';
import { FarmClaim, STALE_MS, type ClaimSide } from '../../electron/engine/lock/farm-claim.js';
import { migrate } from '../../electron/engine/store/migrate.js';
import { ManualClock } from '../../electron/engine/clock.js';

function store(): SqlDb {
  const db = sqliteSqlDb(new Database(':memory:'));
  migrate(db, new ManualClock());
  return db;
}

function side(over: Partial<ClaimSide> & { at?: { t: number }; alive?: Set<number> } = {}): ClaimSide {
  const at = over.at ?? { t: 1_000_000 };
  const alive = over.alive ?? new Set([1, 2]);
  return {
    pid: 1,
    host: 'h1',
    kind: 'serve',
    dbFile: '1:10',
    lockFile: '1:20',
    now: () => at.t,
    pidAlive: (p) => alive.has(p),
    ...over,
  };
}

const refused = (err: unknown): boolean =>
  err instanceof ShotfarmError && err.code === 'conflict' && !!err.details && 'engineLock' in err.details;

test('a second engine is refused while the holder lives, by each rule; taken when it is gone', () => {
  const at = { t: 1_000_000 };
  const alive = new Set([1, 2]);
  const cases: [string, Partial<ClaimSide>, boolean][] = [
    ['same host, holder pid alive, another lock file (the first was deleted)', { pid: 2, lockFile: '1:21' }, true],
    ['same host, holder pid dead', { pid: 2, lockFile: '1:21', pidAlive: () => false }, false],
    ['same host, the taker holds the OS lock on the very file the claim names', { pid: 2, lockFile: '1:20' }, false],
    ['another host, fresh claim', { pid: 2, host: 'h2', lockFile: '9:9' }, true],
    ['a copy of the store (another database file)', { pid: 2, dbFile: '1:11', lockFile: '1:21' }, false],
  ];
  for (const [what, taker, held] of cases) {
    const db = store();
    FarmClaim.take(db, '/d', side({ at, alive }));
    const attempt = () => FarmClaim.take(db, '/d', side({ at, alive, ...taker }));
    if (held) assert.throws(attempt, refused, what);
    else assert.doesNotThrow(attempt, what);
  }
});

test('a claim not refreshed for STALE_MS is gone; refreshing keeps it', () => {
  const at = { t: 1_000_000 };
  const db = store();
  const first = FarmClaim.take(db, '/d', side({ at }));
  at.t += STALE_MS - 1;
  assert.equal(first.refresh(), true);
  at.t += STALE_MS - 1;
  assert.throws(() => FarmClaim.take(db, '/d', side({ at, pid: 2, host: 'h2' })), refused, 'refreshed: still held');
  at.t += 2;
  assert.doesNotThrow(() => FarmClaim.take(db, '/d', side({ at, pid: 2, host: 'h2' })), 'stale: taken');
});

test('a holder whose claim a live engine took stops (refresh is false, and stays false); a missing claim is simply taken again', () => {
  const at = { t: 1_000_000 };
  const db = store();
  const first = FarmClaim.take(db, '/d', side({ at }));
  db.run("DELETE FROM settings WHERE key = 'engine.claim'"); // a restored store, an edited row
  assert.equal(first.refresh(), true);
  at.t += STALE_MS + 1; // suspended past STALE_MS: another engine takes the farm
  FarmClaim.take(db, '/d', side({ at, pid: 2, lockFile: '1:21' }));
  assert.equal(first.refresh(), false);
  assert.equal(first.refresh(), false);
  first.release(); // never removes the successor's claim
  assert.throws(
    () => FarmClaim.take(db, '/d', side({ at, pid: 3, lockFile: '1:22', alive: new Set([1, 2, 3]) })),
    refused,
  );
});
