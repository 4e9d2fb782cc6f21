/**
 * PostgreSQL's SQLSTATEs as the farm's storage holds (postgres-error.ts), table-tested; the real
 * server's stop, read-only and conflict cases are in integration/postgres-faults.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { databaseFault } from '../../electron/engine/store/database.js';
import { CONNECTION, PostgresStoreError } from '../../electron/engine/store/postgres/postgres-error.js';

const CASES: [code: string, kind: string | null][] = [
  [CONNECTION, 'database_unreachable'],
  ['08006', 'database_unreachable'], // connection failure
  ['08001', 'database_unreachable'], // could not establish
  ['57P01', 'database_unreachable'], // admin shutdown
  ['57P02', 'database_unreachable'], // crash shutdown
  ['57P03', 'database_unreachable'], // starting up
  ['53100', 'database_full'],
  ['53300', 'database_busy'], // too many connections
  ['53200', 'database_busy'], // out of memory
  ['40001', 'database_busy'], // serialization failure (after its retries)
  ['40P01', 'database_busy'], // deadlock (after its retries)
  ['25006', 'database_readonly'],
  ['58030', 'database_io'],
  ['23505', null], // unique violation: the statement's own failure
  ['42P01', null], // undefined table
  ['28P01', null], // wrong password: waiting does not fix it
  ['3D000', null], // no such database
];

test('each SQLSTATE that means the storage maps to its hold, and nothing else does', () => {
  for (const [code, kind] of CASES) {
    assert.equal(databaseFault(new PostgresStoreError('x', code))?.kind ?? null, kind, code);
  }
});

test("an error from elsewhere with a connection code (a workstation's ECONNREFUSED) is not the database's", () => {
  assert.equal(
    databaseFault(Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:8188'), { code: 'ECONNREFUSED' })),
    null,
  );
  assert.equal(databaseFault(Object.assign(new Error('x'), { code: '57P01' })), null);
});
