import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { startServer } from '../../electron/server/server.js';
import { RUNLOG_HEADER } from '../../electron/engine/exports/runlog.js';
import { exportFileName } from '../../shared/exports.js';
import { insertAttempt } from '../helpers/attempt-fixtures.js';
import { engineFor, importText, RESOURCES } from '../helpers/engine.js';
import { ticketFor } from '../helpers/people.js';
import { addPerson } from '../helpers/people.js';

const T0 = Date.UTC(2026, 11, 1, 9, 0, 0);

test('GET /api/export/runlog streams the run log as a download: one row per attempt, a dated name, the token checked, nothing written on the server', async (ctx) => {
  const t = await engineFor(ctx);
  const { result } = await importText(
    t.engine,
    'shot_list.json',
    readFileSync(`${RESOURCES}samples/shot_list.json`, 'utf8'),
  );
  const [a, b] = result.jobIds as [string, string];
  insertAttempt(t.engine.db, {
    jobId: a,
    n: 1,
    instance: 'gpu-01',
    gpu: 'RTX 4090',
    queuedAt: T0,
    dispatchedAt: T0 + 10,
    startedAt: T0 + 20,
    finishedAt: T0 + 900,
    outcome: 'retry',
    reason: 'out of GPU memory',
  });
  insertAttempt(t.engine.db, {
    jobId: a,
    n: 2,
    instance: 'gpu-02',
    gpu: 'RTX 4090',
    queuedAt: T0,
    dispatchedAt: T0 + 2000,
    startedAt: T0 + 2010,
    finishedAt: T0 + 9000,
    outcome: 'completed',
  });
  insertAttempt(t.engine.db, {
    jobId: b,
    n: 1,
    instance: 'gpu-01',
    gpu: 'RTX 4090',
    queuedAt: T0,
    dispatchedAt: T0 + 3000,
    startedAt: null,
    finishedAt: null,
    outcome: null,
  });
  const s = await startServer({ engine: t.engine, token: 'sekrit' });
  ctx.after(() => s.close());

  assert.equal((await fetch(`${s.url}/api/export/runlog`)).status, 401, 'the same token as every /api route');
  const inAddress = await fetch(`${s.url}/api/export/runlog?token=sekrit`);
  assert.equal(inAddress.status, 401, 'the token itself in the address is refused');
  assert.match(((await inAddress.json()) as { error: { message: string } }).error.message, /header.*ticket/);
  const files = await ticketFor(s.url, 'sekrit', 'files');
  const res = await fetch(`${s.url}/api/export/runlog?ticket=${files}`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8/);
  assert.equal(
    res.headers.get('content-disposition'),
    `attachment; filename="${exportFileName('runlog', new Date(t.clock.now()))}"`,
  );
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'a UTF-8 BOM for spreadsheets');
  const text = bytes.toString('utf8');
  const rows = parse(text, { bom: true, columns: true }) as Record<string, string>[];
  assert.deepEqual(Object.keys(rows[0]!), [...RUNLOG_HEADER]);
  assert.deepEqual(
    rows.map((r) => [r.attempt, r.outcome]),
    [
      ['1', 'retry'],
      ['2', 'completed'],
      ['1', 'running'],
    ],
  );

  const filtered = await fetch(`${s.url}/api/export/runlog?outcome=completed&from=${T0}`, {
    headers: { authorization: 'Bearer sekrit' },
  });
  assert.equal((parse(await filtered.text(), { bom: true, columns: true }) as unknown[]).length, 1);
  const ledger = await fetch(`${s.url}/api/export/ledger?ticket=${files}&project=Moonfall`);
  assert.equal(ledger.status, 200);
  assert.match(
    ledger.headers.get('content-disposition') ?? '',
    /filename="shotfarm-ledger-\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d\.csv"/,
  );
  await ledger.text();

  const bad = await fetch(`${s.url}/api/export/runlog?ticket=${files}&from=yesterday`);
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { error: { message: string } }).error.message, /from/);
  assert.equal((await fetch(`${s.url}/api/export/secrets?ticket=${files}`)).status, 404);
  assert.equal(
    existsSync(join(t.dir, 'exports')) ? readdirSync(join(t.dir, 'exports')).length : 0,
    0,
    'nothing written on the server',
  );
});

test('with people defined, GET /api/export/:kind answers as the signed-in person: an artist is refused 403, an operator (issue 25: postmortem run logs are theirs) and a lead download, a HEAD is refused the same', async (ctx) => {
  const t = await engineFor(ctx);
  const { result } = await importText(
    t.engine,
    'shot_list.json',
    readFileSync(`${RESOURCES}samples/shot_list.json`, 'utf8'),
  );
  insertAttempt(t.engine.db, {
    jobId: result.jobIds[0] as string,
    n: 1,
    instance: 'gpu-01',
    gpu: 'RTX 4090',
    queuedAt: T0,
    dispatchedAt: T0 + 10,
    startedAt: T0 + 20,
    finishedAt: T0 + 900,
    outcome: 'completed',
  });
  const artist = await addPerson(t.engine, 'mira', 'artist');
  const operator = await addPerson(t.engine, 'oskar', 'operator');
  const lead = await addPerson(t.engine, 'lena', 'lead');
  const s = await startServer({ engine: t.engine });
  ctx.after(() => s.close());
  const get = (path: string, token: string, method = 'GET') =>
    fetch(`${s.url}${path}`, { method, headers: { authorization: `Bearer ${token}` } });

  assert.equal((await fetch(`${s.url}/api/export/runlog`)).status, 401, 'no token, no download');
  for (const kind of ['runlog', 'ledger']) {
    const res = await get(`/api/export/${kind}`, artist);
    assert.equal(res.status, 403, `artist × ${kind}`);
    assert.equal(res.headers.get('content-disposition'), null, 'no file is offered');
    const body = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'forbidden');
    assert.match(body.error.message, /^artists cannot export run logs or ledgers/);
  }
  assert.equal((await get('/api/export/runlog', artist, 'HEAD')).status, 403);
  for (const kind of ['runlog', 'ledger']) {
    const res = await get(`/api/export/${kind}`, operator);
    assert.equal(res.status, 200, `operator × ${kind}`);
    assert.match(res.headers.get('content-disposition') ?? '', new RegExp(`shotfarm-${kind}-`));
    await res.text();
  }
  const res = await fetch(`${s.url}/api/export/runlog`, { headers: { authorization: `Bearer ${lead}` } });
  assert.equal(res.status, 200);
  const rows = parse(await res.text(), { bom: true, columns: true }) as Record<string, string>[];
  assert.deepEqual(
    rows.map((r) => [r.outcome, r.imported_by]),
    [['completed', 'local']],
  );
});
