/**
 * The tests' throwaway PostgreSQL (test/helpers/postgres-cluster.ts): it starts on a loopback port,
 * answers, runs as an unprivileged user even when the tests run as root, stops and starts again
 * on the same port, and leaves nothing behind; without the server programs it fails with how to
 * install them.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { INSTALL_SENTENCE, postgresBinDir, startPostgresCluster } from '../helpers/postgres-cluster.js';

async function ask<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

test('the throwaway cluster answers on loopback, restarts on its port, and is gone after close', {
  timeout: 120_000,
}, async () => {
  const cluster = await startPostgresCluster();
  const root = join(cluster.dataDir, '..');
  try {
    assert.match(cluster.url(), /^postgres:\/\/shotfarm@127\.0\.0\.1:\d+\/postgres$/);
    const [row] = await ask<{ one: number }>(cluster.url(), 'SELECT 1 AS one');
    assert.equal(row?.one, 1);

    const url = cluster.createDatabase('farm_a');
    const [db] = await ask<{ name: string }>(url, 'SELECT current_database() AS name');
    assert.equal(db?.name, 'farm_a');

    // PostgreSQL refuses root: under root the server (its postmaster) must run as someone else.
    if (process.getuid?.() === 0) {
      const postmaster = readFileSync(join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0];
      assert.notEqual(statSync(`/proc/${postmaster}`).uid, 0, 'the server runs as an unprivileged user');
    }

    cluster.stop('fast');
    await assert.rejects(ask(url, 'SELECT 1'), /ECONNREFUSED|connect/);
    cluster.start();
    const [again] = await ask<{ one: number }>(url, 'SELECT 1 AS one');
    assert.equal(again?.one, 1, 'the same URL answers after a restart');
  } finally {
    cluster.close();
  }
  assert.equal(existsSync(root), false, 'close removes the cluster folder');
});

test('without the server programs the cluster fails with a sentence saying how to install them', () => {
  const empty = mkdtempSync(join(tmpdir(), 'shotfarm-nopg-'));
  const before = process.env.SHOTFARM_PG_BIN;
  process.env.SHOTFARM_PG_BIN = empty;
  try {
    assert.throws(
      () => postgresBinDir(),
      (err: Error) => err.message.includes('apt-get install -y postgresql') && err.message.includes(INSTALL_SENTENCE),
    );
  } finally {
    if (before === undefined) delete process.env.SHOTFARM_PG_BIN;
    else process.env.SHOTFARM_PG_BIN = before;
    rmSync(empty, { recursive: true, force: true });
  }
});
