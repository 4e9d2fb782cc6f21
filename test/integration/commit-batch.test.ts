/**
 * Batched durability (store/commit-batch.ts): the writes of one tick commit together, each in a
 * savepoint of its own, so one stale report in a batch rolls back only itself. And the state door
 * says which kind a refusal is: a stale attempt and a wrong state are fenced reports, an illegal
 * transition is not. Real SQLite files.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isFencedReport, isIllegalTransition, JobStateError, transitionJob } from '../../electron/engine/job-state.js';
import { claimAttempt } from '../../electron/engine/store/attempt-store.js';
import {
  COMMIT_TURN_MS,
  COMMIT_TURN_SHARE,
  CommitBatch,
  MAX_WRITES_PER_COMMIT,
} from '../../electron/engine/store/commit-batch.js';
import type { Db } from '../../electron/engine/store/database.js';
import { completeJob, requeueJob } from '../../electron/engine/pools/attempt/outcomes.js';
import { engineFor, importText, RESOURCES } from '../helpers/engine.js';

const sample = readFileSync(`${RESOURCES}samples/shot_list.json`, 'utf8');

const ctxFor = {
  instanceId: 'i1',
  instanceName: 'gpu-1',
  templateName: 't',
  templateHash: 'h',
  paramsJson: '{}',
  seed: null,
};

function claim(
  db: Parameters<typeof claimAttempt>[0],
  clock: Parameters<typeof claimAttempt>[1],
  jobId: string,
  attemptId: string,
  instanceId: string,
): void {
  claimAttempt(db, clock, {
    jobId,
    attemptId,
    instanceId,
    instanceName: 'gpu-1',
    gpuName: null,
    vramAtDispatch: null,
    leaseMs: 60_000,
  });
}

test('one stale report in a batch rolls back only itself; the other writes of the tick commit, in one commit', async (ctx) => {
  const t = await engineFor(ctx);
  const db = t.engine.db;
  const inst = await t.engine.call('instances.add', {
    name: 'gpu-1',
    url: 'http://127.0.0.1:1',
    tags: [],
    maxConcurrency: 1,
  });
  const { result } = await importText(t.engine, 'shot_list.json', sample);
  const [a, b, c] = result.jobIds.filter(
    (id) => (db.one('SELECT state FROM jobs WHERE id = ?', id) as { state: string }).state === 'queued',
  ) as [string, string, string];
  for (const [job, att] of [
    [a, 'att-a'],
    [b, 'att-b'],
    [c, 'att-c'],
  ] as const)
    claim(db, t.clock, job, att, inst.id);
  const eventsOf = (id: string) =>
    (db.one('SELECT COUNT(*) AS n FROM job_events WHERE job_id = ?', id) as { n: number }).n;
  const before = { a: eventsOf(a), b: eventsOf(b), c: eventsOf(c) };

  const batch = new CommitBatch(db);
  const done = [
    batch.add(() => completeJob(db, t.clock, a, 'att-a', [], ctxFor)),
    // Stale: job b's current attempt is att-b, not this one.
    batch.add(() => requeueJob(db, t.clock, b, 'att-old', 'late report')),
    batch.add(() => completeJob(db, t.clock, c, 'att-c', [], ctxFor)),
  ];
  const settled = await Promise.allSettled(done);
  assert.deepEqual(
    settled.map((s) => s.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  const refused = (settled[1] as PromiseRejectedResult).reason as unknown;
  assert.ok(
    refused instanceof JobStateError && refused.kind === 'stale_attempt',
    'the refusal says it is a stale attempt',
  );
  assert.ok(isFencedReport(refused));
  assert.deepEqual(batch.stats, { commits: 1, writes: 3 });

  const state = (id: string) =>
    db.one('SELECT state, current_attempt_id FROM jobs WHERE id = ?', id) as {
      state: string;
      current_attempt_id: string | null;
    };
  assert.equal(state(a).state, 'completed');
  assert.equal(state(c).state, 'completed');
  assert.deepEqual(state(b), { state: 'running', current_attempt_id: 'att-b' }, 'the stale report changed nothing');
  assert.deepEqual(
    { a: eventsOf(a), b: eventsOf(b), c: eventsOf(c) },
    { a: before.a + 1, b: before.b, c: before.c + 1 },
    'the stale report wrote no event row',
  );
  const openB = db.one("SELECT state FROM attempts WHERE id = 'att-b'") as { state: string };
  assert.equal(openB.state, 'claimed');
});

test('the state door names its refusals: a wrong state is a fenced report, an illegal transition is not', async (ctx) => {
  const t = await engineFor(ctx);
  const { result } = await importText(t.engine, 'shot_list.json', sample);
  const queued = result.jobIds.find(
    (id) => (t.engine.db.one('SELECT state FROM jobs WHERE id = ?', id) as { state: string }).state === 'queued',
  ) as string;
  const refusal = (fn: () => unknown): unknown => {
    try {
      fn();
    } catch (err) {
      return err;
    }
    return null;
  };
  const wrong = refusal(() =>
    transitionJob(t.engine.db, t.clock, {
      jobId: queued,
      to: 'queued',
      reason: 'x',
      actor: 'test',
      expectFrom: ['running'],
    }),
  );
  assert.ok(wrong instanceof JobStateError && wrong.kind === 'wrong_state' && isFencedReport(wrong));
  const illegal = refusal(() =>
    transitionJob(t.engine.db, t.clock, { jobId: queued, to: 'completed', reason: 'x', actor: 'test' }),
  );
  assert.ok(isIllegalTransition(illegal) && !isFencedReport(illegal));
  assert.equal(illegal.envelope.code, 'conflict', 'over the contract it is still a conflict');
});

test('a stored batch says so (the storage hold ends its fault streak there); a batch whose commit fails does not', async (ctx) => {
  const t = await engineFor(ctx);
  const db = t.engine.db;
  let committed = 0;
  const batch = new CommitBatch(
    db,
    (fn) => fn(),
    () => committed++,
  );
  await batch.add(() => db.one('SELECT 1'));
  assert.equal(committed, 1);
  // A storage fault under a write ends the whole batch: nothing stored, nothing said.
  const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
  await assert.rejects(
    batch.add(() => {
      throw full;
    }),
    /disk is full/,
  );
  assert.equal(committed, 1);
});

/**
 * A batch whose turns the test runs itself (each deferred commit queued in `due`) and whose clock
 * says each chunk's commit took `chunkMs` (0: all quick).
 */
function turnedBatch(db: Db, chunkMs: number): { batch: CommitBatch; due: (() => void)[] } {
  const due: (() => void)[] = [];
  let ms = 0;
  const batch = new CommitBatch(
    db,
    (fn) => void due.push(fn),
    undefined,
    () => (ms += chunkMs),
  );
  return { batch, due };
}

test('a burst of writes larger than MAX_WRITES_PER_COMMIT commits in order over several turns, each write settled only once its own chunk is stored', async (ctx) => {
  const t = await engineFor(ctx);
  const db = t.engine.db;
  db.exec('CREATE TEMP TABLE burst (n INTEGER NOT NULL)');
  // Each chunk's commit takes the turn's whole budget: one chunk per turn.
  const { batch, due } = turnedBatch(db, COMMIT_TURN_MS);
  const n = MAX_WRITES_PER_COMMIT * 2 + 5;
  const settled: number[] = [];
  const writes = Array.from({ length: n }, (_, i) =>
    batch.add(() => db.run('INSERT INTO burst (n) VALUES (?)', i)).then(() => void settled.push(i)),
  );
  const stored = () => db.all<{ n: number }>('SELECT n FROM burst ORDER BY rowid').map((r) => r.n);
  const turn = async () => {
    assert.equal(due.length, 1, 'one commit due at a time');
    (due.shift() as () => void)();
    await new Promise<void>((done) => setImmediate(done));
  };
  await turn();
  assert.deepEqual(
    stored(),
    Array.from({ length: MAX_WRITES_PER_COMMIT }, (_, i) => i),
    'the first chunk, in order',
  );
  assert.equal(settled.length, MAX_WRITES_PER_COMMIT, "no write reported stored before its chunk's commit");
  // A write added meanwhile queues behind the ones already waiting.
  const late = batch.add(() => db.run('INSERT INTO burst (n) VALUES (?)', n));
  await turn();
  await turn();
  await Promise.all([...writes, late]);
  assert.deepEqual(
    stored(),
    Array.from({ length: n + 1 }, (_, i) => i),
  );
  assert.deepEqual(batch.stats, { commits: 3, writes: n + 1 });
  assert.equal(due.length, 0);
});

test('chunks that commit quickly go on in the same turn: a burst within the turn budget is stored in one turn', async (ctx) => {
  const t = await engineFor(ctx);
  const db = t.engine.db;
  db.exec('CREATE TEMP TABLE burst (n INTEGER NOT NULL)');
  const { batch, due } = turnedBatch(db, 0);
  const n = MAX_WRITES_PER_COMMIT * 2 + 5;
  const writes = Array.from({ length: n }, (_, i) => batch.add(() => db.run('INSERT INTO burst (n) VALUES (?)', i)));
  (due.shift() as () => void)();
  await Promise.all(writes);
  assert.equal(due.length, 0, 'nothing left for another turn');
  assert.deepEqual(batch.stats, { commits: 3, writes: n });
});

test('however slow each chunk, a turn stores at least COMMIT_TURN_SHARE of the backlog it found', async (ctx) => {
  const t = await engineFor(ctx);
  const db = t.engine.db;
  const { batch, due } = turnedBatch(db, COMMIT_TURN_MS * 10);
  const n = MAX_WRITES_PER_COMMIT * 8;
  const writes = Array.from({ length: n }, () => batch.add(() => db.one('SELECT 1')));
  (due.shift() as () => void)();
  assert.equal(batch.stats.writes, Math.ceil(n * COMMIT_TURN_SHARE), 'a quarter of the backlog, in chunks');
  while (due.length) (due.shift() as () => void)();
  await Promise.all(writes);
  assert.equal(batch.stats.writes, n);
});
