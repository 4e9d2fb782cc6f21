import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { RUNLOG_HEADER } from '../../electron/engine/exports/runlog.js';
import { LEDGER_HEADER } from '../../electron/engine/exports/ledger.js';
import { ShotfarmError } from '../../shared/errors.js';
import { insertAsset, insertAttempt } from '../helpers/attempt-fixtures.js';
import { engineFor, importText, RESOURCES } from '../helpers/engine.js';
import { forEachStore } from '../helpers/test-store.js';

const sample = readFileSync(`${RESOURCES}samples/shot_list.json`, 'utf8');
const T0 = Date.UTC(2026, 11, 1, 9, 0, 0);

function readCsv(path: string): Record<string, string>[] {
  const text = readFileSync(path, 'utf8');
  assert.ok(text.startsWith('\uFEFF'), 'starts with a UTF-8 BOM for spreadsheets');
  assert.match(text, /\r\n/, 'CRLF line ends');
  return parse(text, { bom: true, columns: true }) as Record<string, string>[];
}

forEachStore((store) => {
  test(`the run log has one row per attempt, its columns starting with where it belongs, times with the local offset on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const { result } = await importText(t.engine, 'shot_list.json', sample);
    const [a, b] = result.jobIds as [string, string];
    insertAttempt(t.engine.db, {
      jobId: a,
      n: 1,
      instance: 'gpu-01',
      gpu: 'RTX 4090',
      queuedAt: T0,
      dispatchedAt: T0 + 1500,
      startedAt: T0 + 2000,
      finishedAt: T0 + 62_000,
      outcome: 'retry',
      errorClass: 'transient',
      reason: 'out of GPU memory',
      nodeId: '3',
      nodeType: 'KSampler',
      vramAtDispatch: 24 * 1024 ** 3,
    });
    insertAttempt(t.engine.db, {
      jobId: a,
      n: 2,
      instance: 'gpu-02',
      gpu: 'RTX 6000',
      queuedAt: T0 + 70_000,
      dispatchedAt: T0 + 70_010,
      startedAt: T0 + 70_100,
      finishedAt: T0 + 120_100,
      outcome: 'completed',
    });
    insertAttempt(t.engine.db, {
      jobId: b,
      n: 1,
      instance: 'gpu-01',
      gpu: 'RTX 4090',
      queuedAt: T0,
      dispatchedAt: T0 + 130_000,
      startedAt: null,
      finishedAt: null,
      outcome: null,
    });
    const out = join(t.dir, 'runlog.csv');
    const res = await t.engine.call('export.runlog', { path: out });
    assert.equal(res.rows, 3);
    const rows = readCsv(out);
    assert.deepEqual(Object.keys(rows[0]!), [...RUNLOG_HEADER]);
    assert.deepEqual(RUNLOG_HEADER.slice(0, 7), ['project', 'episode', 'sequence', 'shot', 'stage', 'take', 'attempt']);
    assert.equal(rows.length, 3);
    const job = await t.engine.call('jobs.get', { id: a });
    const r0 = rows[0]!;
    assert.deepEqual(
      [
        r0.project,
        r0.episode,
        r0.shot,
        r0.stage,
        r0.take,
        r0.attempt,
        r0.outcome,
        r0.wait_s,
        r0.run_s,
        r0.node_type,
        r0.free_vram_at_dispatch_gb,
      ],
      ['Moonfall', 'ep101', job.shot, job.stage, '1', '1', 'retry', '1.5', '60', 'KSampler', '24'],
    );
    assert.deepEqual(
      [r0.template, r0.template_version, r0.seed, r0.priority, r0.job_id],
      [job.template, '1', String(job.seed), job.priority, a],
    );
    // ISO 8601 with the offset of this machine's zone: the same instant, whatever the zone.
    assert.match(r0.dispatched_at!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
    assert.equal(Date.parse(r0.dispatched_at!), T0 + 1500);
    assert.match(r0.dispatched_local!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    assert.equal(r0.dispatched_local, r0.dispatched_at!.slice(0, 19).replace('T', ' '));
    assert.equal(rows[2]!.outcome, 'running');
    assert.equal(rows[2]!.run_s, '');

    const filtered = join(t.dir, 'completed.csv');
    assert.equal((await t.engine.call('export.runlog', { path: filtered, outcome: 'completed' })).rows, 1);
    const windowed = join(t.dir, 'window.csv');
    assert.equal(
      (await t.engine.call('export.runlog', { path: windowed, from: T0 + 60_000, to: T0 + 125_000 })).rows,
      1,
    );
  });

  test(`wait_s counts from when the job last became eligible: time on hold is not waiting on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const { result } = await importText(t.engine, 'shot_list.json', sample);
    const id = result.jobIds[0]!;
    t.clock.advance(10_000);
    await t.engine.call('jobs.hold', { ids: [id] });
    t.clock.advance(50_000);
    await t.engine.call('jobs.release', { ids: [id] });
    insertAttempt(t.engine.db, {
      jobId: id,
      n: 1,
      instance: 'gpu-01',
      gpu: 'RTX 4090',
      queuedAt: T0,
      dispatchedAt: T0 + 62_500,
      startedAt: T0 + 63_000,
      finishedAt: T0 + 70_000,
      outcome: 'completed',
    });
    const out = join(t.dir, 'runlog.csv');
    await t.engine.call('export.runlog', { path: out });
    const [row] = readCsv(out);
    assert.equal(row!.wait_s, '2.5', 'from the release, not from the import 62.5 s before');
    assert.equal(Date.parse(row!.eligible_at!), T0 + 60_000);
  });

  test(`the sequence column comes from the shot list's Sequence column on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const csv = readFileSync(`${RESOURCES}samples/kitsu_shots.csv`, 'utf8');
    const preview = await t.engine.call('import.preview', {
      fileName: 'kitsu_shots.csv',
      content: csv,
      baseDir: `${RESOURCES}samples`,
      mapping: { project: 'Moonfall', stage: 'keyframe', template: 'keyframe-img2img' },
    });
    const { jobIds } = await t.engine.call('import.commit', { previewId: preview.previewId });
    insertAttempt(t.engine.db, {
      jobId: jobIds[0]!,
      n: 1,
      instance: 'gpu-01',
      gpu: 'x',
      queuedAt: T0,
      dispatchedAt: T0 + 1,
      startedAt: T0 + 1,
      finishedAt: T0 + 2,
      outcome: 'completed',
    });
    const out = join(t.dir, 'runlog.csv');
    await t.engine.call('export.runlog', { path: out });
    const [row] = readCsv(out);
    assert.equal(row!.sequence, 'sq01');
  });

  test(`an export never replaces a file: the second one to the same name fails and the first stays as it was on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    await importText(t.engine, 'shot_list.json', sample);
    const out = join(t.dir, 'runlog.csv');
    await t.engine.call('export.runlog', { path: out });
    const first = readFileSync(out, 'utf8');
    await assert.rejects(
      t.engine.call('export.ledger', { path: out }),
      (err: unknown) => err instanceof ShotfarmError && err.code === 'conflict' && /already exists/.test(err.message),
    );
    assert.equal(readFileSync(out, 'utf8'), first);
    assert.deepEqual(
      readdirSync(t.dir).filter((f) => f.endsWith('.tmp')),
      [],
    );
  });

  test(`a cell that looks like a spreadsheet formula is neutralised on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const { result } = await importText(t.engine, 'shot_list.json', sample);
    insertAttempt(t.engine.db, {
      jobId: result.jobIds[0]!,
      n: 1,
      instance: '=HYPERLINK("http://evil")',
      gpu: '+cmd',
      queuedAt: T0,
      dispatchedAt: T0,
      startedAt: T0,
      finishedAt: T0 + 1,
      outcome: 'failed',
      reason: '@SUM(A1)',
    });
    const out = join(t.dir, 'r.csv');
    await t.engine.call('export.runlog', { path: out });
    const [row] = readCsv(out);
    assert.equal(row!.instance, `'=HYPERLINK("http://evil")`);
    assert.equal(row!.gpu, "'+cmd");
    assert.equal(row!.reason, "'@SUM(A1)");
  });

  test(`the ledger export lists every asset with its hash and settings on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const { result } = await importText(t.engine, 'shot_list.json', sample);
    const jobId = result.jobIds[0]!;
    const att = insertAttempt(t.engine.db, {
      jobId,
      n: 1,
      instance: 'gpu-01',
      gpu: 'x',
      queuedAt: T0,
      dispatchedAt: T0,
      startedAt: T0,
      finishedAt: T0 + 5,
      outcome: 'completed',
    });
    insertAsset(t.engine.db, jobId, att, '/out/Moonfall/ep101/sh010/keyframe/take-1/keyframe_00001_.png', T0 + 5);
    const out = join(t.dir, 'ledger.csv');
    const res = await t.engine.call('export.ledger', { path: out, project: 'Moonfall' });
    assert.equal(res.rows, 1);
    const rows = readCsv(out);
    assert.deepEqual(Object.keys(rows[0]!), [...LEDGER_HEADER]);
    assert.equal(rows[0]!.sha256, 'f'.repeat(64));
    assert.equal(rows[0]!.approved, 'no');
    assert.equal((await t.engine.call('export.ledger', { path: join(t.dir, 'none.csv'), project: 'Other' })).rows, 0);
  });

  test(`an export to a folder that does not exist fails clearly and leaves no temp file on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    await assert.rejects(
      t.engine.call('export.runlog', { path: join(t.dir, 'missing', 'r.csv') }),
      (err: unknown) => err instanceof ShotfarmError && err.code === 'storage' && /does not exist/.test(err.message),
    );
    assert.deepEqual(
      readdirSync(t.dir).filter((f) => f.endsWith('.tmp')),
      [],
    );
  });

  test(`a 20,000-attempt run log streams without holding its rows in memory on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const { result } = await importText(t.engine, 'shot_list.json', sample);
    const jobId = result.jobIds[0]!;
    const insert = `INSERT INTO attempts (id, job_id, n, instance_name, gpu_name, state, outcome, reason,
    queued_at, dispatched_at, started_at, finished_at) VALUES (?, ?, ?, 'gpu-01', 'RTX 4090', 'ended', 'completed', ?, ?, ?, ?, ?)`;
    t.engine.db.transaction(() => {
      for (let n = 1; n <= 20_000; n++)
        t.engine.db.run(insert, `a${n}`, jobId, n, 'x'.repeat(2000), T0 + n, T0 + n, T0 + n, T0 + n + 1000);
    });
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
    const res = await t.engine.call('export.runlog', { path: join(t.dir, 'big.csv') });
    clearInterval(timer);
    assert.equal(res.rows, 20_000);
    // 20k rows of ~2 KB are ~44 MB of CSV: holding them would blow past this bound; streaming stays far below.
    assert.ok(peak - before < 24 * 1024 ** 2, `heap grew by ${((peak - before) / 1024 ** 2).toFixed(1)} MB`);
  });
});
