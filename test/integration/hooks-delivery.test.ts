import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Timers } from '../../electron/engine/clock.js';
import { HookRunner, type JobHookPayload, type LateHookPayload } from '../../electron/engine/hooks/hook-runner.js';
import { addHook, getHooks, setHooks } from '../../electron/engine/hooks/hook-settings.js';
import { listDeliveries } from '../../electron/engine/store/delivery-store.js';
import type { JobView } from '../../shared/domain.js';
import { ShotfarmError } from '../../shared/errors.js';
import { importText, makeEngine, RESOURCES, type TestEngine } from '../helpers/engine.js';
import { waitUntil } from '../helpers/wait.js';

const sample = readFileSync(`${RESOURCES}samples/shot_list.json`, 'utf8');

/** Real (ref'd) timers that remember each retry delay the runner asked for. */
function recordingTimers(): { timers: Timers; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    timers: {
      setTimeout: (fn, ms) => {
        delays.push(ms);
        return setTimeout(fn, ms);
      },
      clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
    },
  };
}

interface Setup {
  t: TestEngine;
  runner: HookRunner;
  delays: number[];
  logs: string[];
  job: JobView;
}

async function setup(random = () => 0.5): Promise<Setup> {
  const t = await makeEngine();
  const { result } = await importText(t.engine, 'shot_list.json', sample);
  const view = await t.engine.call('jobs.get', { id: result.jobIds[0]! });
  const { timers, delays } = recordingTimers();
  const logs: string[] = [];
  const runner = new HookRunner({
    db: t.engine.db,
    clock: t.clock,
    timers,
    random,
    log: (m) => void logs.push(m),
    backoff: { baseMs: 40, capMs: 1000 },
  });
  return { t, runner, delays, logs, job: { ...view, state: 'completed', attempts: 1, finishedAt: t.clock.now() } };
}

async function teardown(s: Setup): Promise<void> {
  await s.runner.close();
  await s.t.close();
}

/** A loopback HTTP server that hands every request to `handle`, with the body read. */
async function listen(
  handle: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => handle(req, body, res));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A hook program: copies stdin and its event variable to a file, or fails as told. */
function script(s: Setup, name: string, body: string): string {
  const path = join(s.t.dir, name);
  writeFileSync(path, body);
  return path;
}

test('a command hook receives the job JSON on stdin, with no shell in between', async () => {
  const s = await setup();
  try {
    const out = join(s.t.dir, 'received; touch pwned.json');
    const prog = script(
      s,
      'record.cjs',
      `const fs = require('node:fs'); let input = '';
      process.stdin.setEncoding('utf8').on('data', (d) => (input += d)).on('end', () =>
        fs.writeFileSync(process.argv[2], JSON.stringify({ input, event: process.env.SHOTFARM_EVENT, job: process.env.SHOTFARM_JOB_ID })));`,
    );
    addHook(s.t.engine.db, s.t.clock, {
      id: 'record',
      on: ['completed'],
      kind: 'command',
      command: process.execPath,
      args: [prog, out],
    });

    const ids = s.runner.notify(s.job);
    assert.equal(ids.length, 1);
    await s.runner.whenIdle();

    const got = JSON.parse(readFileSync(out, 'utf8'));
    const payload = JSON.parse(got.input) as JobHookPayload;
    assert.deepEqual(payload.job, s.job);
    assert.deepEqual([payload.event, payload.delivery_id, payload.hook_id], ['completed', ids[0], 'record']);
    assert.deepEqual([got.event, got.job], ['completed', s.job.id]);
    // The argument with "; touch …" in it reached the program as one literal file name.
    assert.equal(existsSync(join(s.t.dir, 'pwned.json')), false);
    const [d] = listDeliveries(s.t.engine.db);
    assert.deepEqual(
      [d!.status, d!.attempts, d!.lastError, d!.event, d!.jobId],
      ['delivered', 1, null, 'completed', s.job.id],
    );
  } finally {
    await teardown(s);
  }
});

test('a webhook POSTs the job JSON to its URL', async () => {
  const s = await setup();
  const received: { method: string; type: string; event: string; body: string }[] = [];
  const { server, url } = await listen((req, body, res) => {
    received.push({
      method: req.method!,
      type: req.headers['content-type']!,
      event: String(req.headers['x-shotfarm-event']),
      body,
    });
    res.writeHead(204).end();
  });
  try {
    addHook(s.t.engine.db, s.t.clock, { id: 'chat', on: ['failed'], kind: 'webhook', url: `${url}/hooks/render` });
    const failed: JobView = {
      ...s.job,
      state: 'failed_final',
      stateReason: 'out of GPU memory',
      errorClass: 'permanent',
    };
    assert.deepEqual(s.runner.notify(s.job), [], 'a completed job does not reach a failed-only hook');
    assert.equal(s.runner.notify(failed).length, 1);
    await s.runner.whenIdle();
    assert.equal(received.length, 1);
    assert.deepEqual(
      [received[0]!.method, received[0]!.type, received[0]!.event],
      ['POST', 'application/json', 'failed'],
    );
    const payload = JSON.parse(received[0]!.body) as JobHookPayload;
    assert.deepEqual(
      [payload.event, payload.job.id, payload.job.stateReason],
      ['failed', s.job.id, 'out of GPU memory'],
    );
    assert.equal(listDeliveries(s.t.engine.db, { status: 'delivered' }).length, 1);
  } finally {
    await stop(server);
    await teardown(s);
  }
});

test('a command that exits 1 is retried with backoff, then recorded as failed with its error', async () => {
  const s = await setup();
  try {
    // The program leaves a mark as soon as it starts, before anything else.
    const ran = join(s.t.dir, 'ran');
    const prog = script(
      s,
      'fail.cjs',
      `require('node:fs').appendFileSync(process.argv[2], 'x');
      process.stdin.resume(); process.stdin.on('end', () => { console.error('boom: the render farm channel is archived'); process.exit(1); });`,
    );
    addHook(s.t.engine.db, s.t.clock, {
      id: 'broken',
      on: ['completed'],
      kind: 'command',
      command: process.execPath,
      args: [prog, ran],
      retries: 2,
    });

    const ids = s.runner.notify(s.job);
    // notify has returned, and the program has not even started: it did not wait for it.
    assert.equal(existsSync(ran), false, 'notify returns without waiting for the program');
    assert.deepEqual(
      [listDeliveries(s.t.engine.db)[0]!.status, listDeliveries(s.t.engine.db)[0]!.attempts],
      ['pending', 0],
    );
    await s.runner.whenIdle();
    assert.equal(readFileSync(ran, 'utf8'), 'xxx', 'the program ran once per try');

    const [d] = listDeliveries(s.t.engine.db);
    assert.equal(d!.id, ids[0]);
    assert.deepEqual([d!.status, d!.attempts], ['failed', 3], '1 try + 2 retries');
    assert.match(d!.lastError!, /exited with code 1: boom: the render farm channel is archived/);
    // First try at once, then random 0.5 × 40 ms × 2^n: exponential backoff with injected jitter.
    assert.deepEqual(s.delays, [0, 20, 40]);
    assert.ok(
      s.logs.some((l) => /"broken" .* gave up on job .* after 3 tries/.test(l)),
      s.logs.join('\n'),
    );
  } finally {
    await teardown(s);
  }
});

test('a webhook answering HTTP 500 is retried, then recorded as failed with the status', async () => {
  const s = await setup(() => 0);
  let hits = 0;
  const { server, url } = await listen((_req, _body, res) => {
    hits++;
    res.writeHead(500, { 'content-type': 'text/plain' }).end('database is down');
  });
  try {
    addHook(s.t.engine.db, s.t.clock, {
      id: 'ci',
      on: ['completed'],
      kind: 'webhook',
      url: `${url}/secret-token-path`,
      retries: 3,
    });
    s.runner.notify(s.job);
    await s.runner.whenIdle();
    assert.equal(hits, 4);
    const [d] = listDeliveries(s.t.engine.db, { status: 'failed' });
    assert.equal(d!.attempts, 4);
    assert.equal(d!.lastError, `${url} answered HTTP 500: database is down`);
    assert.ok(!d!.lastError!.includes('secret-token-path'), 'the URL path (often a token) is not stored in errors');
  } finally {
    await stop(server);
    await teardown(s);
  }
});

// The program and the server never finish on their own: the runner becoming idle at all is the
// proof that the timeouts bound each try (the test's own timeout stands for "never").
test('a hook past its timeout is stopped, retried, and recorded as timed out', { timeout: 60_000 }, async () => {
  const s = await setup(() => 0);
  const { server, url } = await listen(() => undefined /* never answers */);
  try {
    const pids = join(s.t.dir, 'pids');
    const prog = script(
      s,
      'hang.cjs',
      `require('node:fs').appendFileSync(process.argv[2], process.pid + '\\n'); setInterval(() => {}, 1 << 30);`,
    );
    setHooks(s.t.engine.db, s.t.clock, [
      {
        id: 'slow-cmd',
        on: ['completed'],
        kind: 'command',
        command: process.execPath,
        args: [prog, pids],
        timeoutMs: 300,
        retries: 1,
      },
      { id: 'slow-web', on: ['completed'], kind: 'webhook', url, timeoutMs: 300, retries: 1 },
    ]);
    s.runner.notify(s.job);
    await s.runner.whenIdle();
    // Every try of the hung program that got as far as starting was killed, not left behind (on a
    // loaded machine a try can be stopped before its program has even written its pid).
    const started = existsSync(pids) ? readFileSync(pids, 'utf8').trim().split('\n').map(Number) : [];
    assert.ok(started.length <= 2, `${started.length} programs for 2 tries`);
    await waitUntil(() => started.every((pid) => !isAlive(pid)), { what: 'the hung hook programs to be gone' });
    const byHook = Object.fromEntries(listDeliveries(s.t.engine.db).map((d) => [d.hookId, d]));
    assert.deepEqual([byHook['slow-cmd']!.status, byHook['slow-cmd']!.attempts], ['failed', 2]);
    assert.match(byHook['slow-cmd']!.lastError!, /did not finish within 0\.3 s and was stopped/);
    assert.deepEqual([byHook['slow-web']!.status, byHook['slow-web']!.attempts], ['failed', 2]);
    assert.equal(byHook['slow-web']!.lastError, `${url} did not answer within 0.3 s.`);
  } finally {
    await stop(server);
    await teardown(s);
  }
});

test('notify never throws to the caller: a missing program, a refused connection, a corrupt setting', async () => {
  const s = await setup(() => 0);
  try {
    setHooks(s.t.engine.db, s.t.clock, [
      { id: 'gone', on: ['completed'], kind: 'command', command: join(s.t.dir, 'no-such-program'), retries: 0 },
      { id: 'closed', on: ['completed'], kind: 'webhook', url: 'http://127.0.0.1:1/hook', retries: 0 },
    ]);
    assert.equal(s.runner.notify(s.job).length, 2);
    await s.runner.whenIdle();
    const byHook = Object.fromEntries(listDeliveries(s.t.engine.db).map((d) => [d.hookId, d]));
    assert.match(byHook.gone!.lastError!, /was not found/);
    assert.equal(byHook.closed!.lastError, 'http://127.0.0.1:1 refused the connection (nothing listening there?).');

    s.t.engine.db.run('UPDATE settings SET value_json = \'[{"id":"x","kind":"shell"}]\' WHERE key = \'hooks\'');
    assert.throws(
      () => getHooks(s.t.engine.db),
      (err: unknown) => err instanceof ShotfarmError && /hooks setting is invalid/.test(err.message),
    );
    assert.deepEqual(s.runner.notify({ ...s.job, attempts: 2 }), []);
    assert.ok(s.logs.some((l) => /nothing was sent for job/.test(l)));
  } finally {
    await teardown(s);
  }
});

test('publishing the same finished job twice delivers once; a later failure of the same job notifies again', async () => {
  const s = await setup();
  const { server, url } = await listen((_req, _body, res) => void res.writeHead(200).end('ok'));
  try {
    addHook(s.t.engine.db, s.t.clock, { id: 'all', on: ['completed', 'failed'], kind: 'webhook', url });
    assert.equal(s.runner.notify(s.job).length, 1);
    assert.deepEqual(
      s.runner.notify({ ...s.job, updatedAt: s.job.updatedAt + 5 }),
      [],
      'same transition, published again',
    );
    assert.deepEqual(s.runner.notify({ ...s.job, state: 'running' }), [], 'not a terminal state');
    assert.equal(
      s.runner.notify({ ...s.job, state: 'timeout_kill', attempts: 3, finishedAt: s.job.finishedAt! + 60_000 }).length,
      1,
    );
    await s.runner.whenIdle();
    assert.deepEqual(
      listDeliveries(s.t.engine.db).map((d) => [d.event, d.status]),
      [
        ['failed', 'delivered'],
        ['completed', 'delivered'],
      ],
    );
  } finally {
    await stop(server);
    await teardown(s);
  }
});

test('close stops waiting retries; the delivery stays pending and is resumed by the next runner', async () => {
  const t = await makeEngine();
  const { result } = await importText(t.engine, 'shot_list.json', sample);
  const job: JobView = {
    ...(await t.engine.call('jobs.get', { id: result.jobIds[0]! })),
    state: 'completed',
    finishedAt: t.clock.now(),
  };
  // Timers that run the first try at once but hold every retry: the retry being scheduled is the
  // signal that the failed first try was recorded.
  let retryScheduled!: () => void;
  const retryWaiting = new Promise<void>((r) => (retryScheduled = r));
  const holding: Timers = {
    setTimeout: (fn, ms) => (ms === 0 ? setTimeout(fn, 0) : (retryScheduled(), { held: fn })),
    clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  };
  let answer = 503;
  let hits = 0;
  const { server, url } = await listen((_req, _body, res) => {
    hits++;
    res.writeHead(answer).end();
  });
  try {
    addHook(t.engine.db, t.clock, { id: 'flaky', on: ['completed'], kind: 'webhook', url, retries: 5 });
    const first = new HookRunner({
      db: t.engine.db,
      clock: t.clock,
      timers: holding,
      random: () => 0.999,
      log: () => undefined,
    });
    const ids = first.notify(job);
    await retryWaiting;
    await first.close();
    const [waiting] = listDeliveries(t.engine.db);
    assert.deepEqual(
      [waiting!.status, waiting!.attempts, waiting!.lastError],
      ['pending', 1, `${url} answered HTTP 503.`],
    );
    assert.ok(waiting!.nextAttemptAt! > t.clock.now(), 'the backoff is kept for the next start');

    answer = 200;
    t.clock.advance(waiting!.nextAttemptAt! - t.clock.now());
    const recorder = recordingTimers();
    const next = new HookRunner({
      db: t.engine.db,
      clock: t.clock,
      timers: recorder.timers,
      random: () => 0,
      log: () => undefined,
    });
    assert.equal(next.resumePending(), 1);
    assert.deepEqual(recorder.delays, [0], 'its backoff is over by now, so it is tried at once');
    await next.whenIdle();
    await next.close();
    const [done] = listDeliveries(t.engine.db);
    assert.deepEqual([done!.id, done!.status, done!.attempts, hits], [ids[0], 'delivered', 2, 2]);
  } finally {
    await stop(server);
    await t.close();
  }
});

test('a hook removed while its retry waits is not run again', async () => {
  const s = await setup(() => 0);
  let hits = 0;
  const { server, url } = await listen((_req, _body, res) => {
    hits++;
    if (hits === 1) setHooks(s.t.engine.db, s.t.clock, []);
    res.writeHead(500).end();
  });
  try {
    addHook(s.t.engine.db, s.t.clock, { id: 'noisy', on: ['completed'], kind: 'webhook', url, retries: 3 });
    s.runner.notify(s.job);
    await s.runner.whenIdle();
    assert.equal(hits, 1);
    const [d] = listDeliveries(s.t.engine.db);
    assert.equal(d!.status, 'failed');
    assert.match(d!.lastError!, /"noisy" was removed from the settings/);
  } finally {
    await stop(server);
    await teardown(s);
  }
});

test('a hook on late gets the late group once per due time, and again when the due time changes', async () => {
  const s = await setup();
  const received: { event: string; body: string }[] = [];
  const { server, url } = await listen((req, body, res) => {
    received.push({ event: String(req.headers['x-shotfarm-event']), body });
    res.writeHead(204).end();
  });
  try {
    addHook(s.t.engine.db, s.t.clock, { id: 'late-chat', on: ['late'], kind: 'webhook', url: `${url}/late` });
    addHook(s.t.engine.db, s.t.clock, { id: 'done-chat', on: ['completed'], kind: 'webhook', url: `${url}/done` });
    const now = s.t.clock.now();
    const group = {
      kind: 'episode' as const,
      key: 'Moonfall/ep101',
      project: 'Moonfall',
      episode: 'ep101',
      sequence: null,
      total: 340,
      done: 100,
      running: 4,
      queued: 236,
      other: 0,
      p50At: now + 3_600_000,
      p90At: now + 5_400_000,
      dueAt: now + 1_800_000,
      late: true,
      remedy: '2 more GPUs or a bump would make it',
      unplaced: 0,
    };
    assert.equal(s.runner.notifyLate(group).length, 1, 'only the hook on late');
    assert.deepEqual(s.runner.notifyLate(group), [], 'late again for the same due time: not news');
    assert.equal(s.runner.notifyLate({ ...group, dueAt: now + 2_400_000 }).length, 1, 'a new due time, missed too');
    await s.runner.whenIdle();
    assert.equal(received.length, 2);
    const payload = JSON.parse(received[0]!.body) as LateHookPayload;
    assert.deepEqual([received[0]!.event, payload.event, payload.hook_id], ['late', 'late', 'late-chat']);
    assert.deepEqual(payload.group, group);
    const rows = listDeliveries(s.t.engine.db);
    assert.deepEqual(
      rows.map((d) => [d.event, d.jobId, d.status]),
      [
        ['late', 'Moonfall/ep101', 'delivered'],
        ['late', 'Moonfall/ep101', 'delivered'],
      ],
    );
  } finally {
    await stop(server);
    await teardown(s);
  }
});
