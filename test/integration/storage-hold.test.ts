/**
 * Defect 6 of issue [R]: the engine crashed on SQLITE_BUSY (another process holding the write lock
 * over 5 s) or SQLITE_FULL — the health probe's write had no error handling. Now a storage fault
 * holds the farm with a visible reason (farm.status storageHold, the UI's banner) and the farm
 * tries again by itself; no attempt is burned and nothing is rendered twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { executedCount, farmFor } from '../helpers/farm.js';
import { REPO } from '../helpers/engine.js';
import { nextValue } from '../helpers/wait.js';

test('a full database holds the farm with its reason and resumes by itself once there is room: every job once, no attempt burned', async (ctx) => {
  const farm = await farmFor(ctx, {
    instances: [{}],
    start: false,
    config: { storageRetryMs: 100, storageRetryCapMs: 300 },
  });
  const ids = await farm.importJobs(Array.from({ length: 20 }, (_, i) => ({ id: `sh${i}` })));
  const db = farm.engine.db;
  // SQLite answers SQLITE_FULL once the file would grow past max_page_count: a full disk, on demand.
  db.sqlite?.pragma(`max_page_count = ${db.sqlite?.pragma('page_count', { simple: true }) as number}`);
  farm.startScheduler();
  await farm.waitFor(
    'the farm to hold on the full database',
    async () => (await farm.engine.call('farm.status', {})).storageHold?.kind === 'database_full',
  );
  const held = await farm.engine.call('farm.status', {});
  assert.match(held.storageHold?.reason ?? '', /^the database disk is full \(/);
  assert.equal(held.dispatching, false);
  db.sqlite?.pragma('max_page_count = 1073741823');
  const done = await farm.waitForStates(ids, ['completed', 'failed_final', 'failed_retryable'], 60_000);
  assert.deepEqual(
    done.filter((j) => j.state !== 'completed').map((j) => [j.shot, j.state, j.stateReason]),
    [],
  );
  assert.deepEqual(
    done.filter((j) => j.attempts !== 1).map((j) => [j.shot, j.attempts]),
    [],
    'no attempt was spent on the full disk',
  );
  for (const id of ids) assert.equal(executedCount(farm, id), 1, `job ${id} rendered once`);
  await farm.waitFor(
    'the hold to be over',
    async () => (await farm.engine.call('farm.status', {})).storageHold === null,
  );
});

/** Another process holding the store's write lock (BEGIN IMMEDIATE) until told to let go. */
async function lockHolder(file: string) {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `
    const Database = require('better-sqlite3');
    const db = new Database(${JSON.stringify(file)});
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    process.stdin.once('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });
  `,
    ],
    { cwd: REPO, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  await nextValue<void>((deliver) => child.stdout.once('data', () => deliver()), {
    what: 'the other process to hold the lock',
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    release: async () => {
      child.stdin.end('go\n');
      await exited;
    },
    kill: () => child.kill('SIGKILL'),
  };
}

test('the database locked by another process past the busy timeout holds the farm, which carries on once the lock is gone', {
  timeout: 120_000,
}, async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{}], config: { storageRetryMs: 200, storageRetryCapMs: 500 } });
  const sim = farm.sims[0]!;
  await farm.waitFor('the workstation to be ready', () =>
    farm.engine.scheduler!.readiness().every((r) => r.dispatchable),
  );
  const other = await lockHolder(join(farm.dir, 'shotfarm.sqlite'));
  ctx.after(() => other.kill());
  // The workstation goes silent: the probe that notices must write its health — and waits 5 s for the lock.
  sim.partition(true);
  await farm.waitFor(
    'the farm to hold on the locked database',
    async () => (await farm.engine.call('farm.status', {})).storageHold?.kind === 'database_busy',
    60_000,
  );
  assert.match(
    (await farm.engine.call('farm.status', {})).storageHold?.reason ?? '',
    /database is locked by another process/,
  );
  await other.release();
  sim.partition(false);
  await farm.waitFor(
    'the farm to take its workstation back',
    () => farm.engine.scheduler!.readiness().every((r) => r.dispatchable),
    60_000,
  );
  const [id] = await farm.importJobs([{ id: 'after' }]);
  await farm.waitForStates([id!], ['completed'], 60_000);
  assert.equal(executedCount(farm, id!), 1);
});
