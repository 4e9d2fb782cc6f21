/**
 * An import's words for a SQLite storage failure (store/storage-failure.ts) follow the farm's own
 * list of storage conditions (database.ts databaseFault), plus a damaged file; anything else is not
 * dressed up as a storage problem.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { storageFailure } from '../../electron/engine/store/storage-failure.js';

const err = (code: string) => Object.assign(new Error(code), { code });

test('each storage condition gets its words, naming the file and what stored nothing; others are left to the caller', () => {
  const cases: [string, RegExp | null, boolean][] = [
    ['SQLITE_FULL', /disk holding the database \/d\/shotfarm\.sqlite is full: importing l\.csv stored nothing/, false],
    ['SQLITE_READONLY_DBMOVED', /is read-only \(SQLITE_READONLY_DBMOVED\)/, false],
    ['SQLITE_IOERR_WRITE', /disk I\/O error, SQLITE_IOERR_WRITE/, false],
    ['SQLITE_CORRUPT', /is damaged \(SQLITE_CORRUPT\).*backup/, false],
    ['SQLITE_NOTADB', /is damaged/, false],
    ['SQLITE_BUSY', /stayed locked by another process/, true],
    ['SQLITE_LOCKED_SHAREDCACHE', /stayed locked by another process/, true], // as the farm's hold sees it
    ['SQLITE_CONSTRAINT_UNIQUE', null, false],
    ['ENOENT', null, false],
  ];
  for (const [code, words, retryable] of cases) {
    const e = storageFailure(err(code), '/d/shotfarm.sqlite', 'importing l.csv');
    if (words === null) {
      assert.equal(e, null, code);
      continue;
    }
    assert.ok(e, code);
    assert.equal(e.code, 'storage', code);
    assert.match(e.message, words, code);
    assert.equal(e.retryable, retryable, code);
  }
  assert.equal(storageFailure(new Error('a bug'), '/d/x', 'x'), null);
});
