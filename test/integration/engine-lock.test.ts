/**
 * Defect 2 of issue [R]: two engines on one data folder (the desktop app's single-instance lock
 * does not cover the CLI or `serve`) both dispatched; a server held two of our prompts at once, and
 * the second engine's start-up recovery requeued a job the first had claimed but not yet posted,
 * which then rendered on two GPUs. Now the farm has an OS-level lock held for the engine's life
 * (released by the kernel when the process dies); a second engine refuses, saying who holds the
 * farm, and one-shot commands go through the holder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { ShotfarmError } from '../../shared/errors.js';
import { EXIT, exitCodeFor } from '../../electron/cli/exit-codes.js';
import { Engine } from '../../electron/engine/engine.js';
import { engineLockHolder } from '../../electron/engine/lock/engine-lock.js';
import { REPO } from '../helpers/engine.js';
import {
  FARM_KINDS,
  seedDataFolder,
  startFarmProcess,
  type FarmKind,
  type FarmProcess,
} from '../helpers/farm-process.js';
import { tempDirFor } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait.js';
import { startSimInstance } from '../simulator/index.js';

const KIND_WORDS: Record<FarmKind, RegExp> = {
  desktop: /the Shotfarm desktop app/,
  serve: /`shotfarm serve`/,
  run: /`shotfarm run`/,
};

function refusal(err: unknown): ShotfarmError {
  assert.ok(err instanceof ShotfarmError, String(err));
  return err;
}

test('a second engine on the same data folder refuses to run its farm, naming the first; closing the first frees it', async (ctx) => {
  const dir = tempDirFor(ctx);
  const first = new Engine({ dataDir: dir, log: () => undefined });
  ctx.after(() => first.close());
  first.startScheduler();
  const second = new Engine({ dataDir: dir, log: () => undefined });
  ctx.after(() => second.close());
  let err: ShotfarmError | null = null;
  try {
    second.startScheduler();
  } catch (e) {
    err = refusal(e);
  }
  assert.ok(err, 'the second scheduler must not start');
  assert.equal(err.code, 'conflict');
  assert.match(
    err.message,
    new RegExp(
      `^The farm on ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is already run by a program embedding the Shotfarm engine \\(pid ${process.pid} on .+, since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\)\\. Only one engine may run a data folder's farm: stop it first`,
    ),
  );
  assert.equal(exitCodeFor(err.code, err.details), EXIT.farmHeld);
  assert.equal(second.scheduler, null);
  assert.throws(
    () => new Engine({ dataDir: dir, kind: 'serve', log: () => undefined }),
    /already run by/,
    'a host is refused as it opens',
  );
  assert.equal(engineLockHolder(dir).held, true);
  await first.close();
  assert.equal(engineLockHolder(dir).held, false, 'closing frees the farm');
  second.startScheduler();
  assert.equal(second.holder?.pid, process.pid);
});

test('the control address takes only its token, and no page', async (ctx) => {
  const dir = tempDirFor(ctx);
  const e = new Engine({ dataDir: dir, log: () => undefined });
  ctx.after(() => e.close());
  e.startScheduler();
  let holder = engineLockHolder(dir);
  for (let i = 0; i < 200 && !(holder.held && holder.record?.control); i++) {
    await new Promise((r) => setImmediate(r));
    holder = engineLockHolder(dir);
  }
  assert.ok(holder.held && holder.record?.control, 'the record says where the engine listens');
  const { url, token } = holder.record.control;
  const call = (headers: Record<string, string>) =>
    request(`${url}/call/farm.status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: '{}',
    });
  const codeOf = async (r: Awaited<ReturnType<typeof call>>) =>
    ((await r.body.json()) as { error?: { code?: string } }).error?.code;
  const none = await call({});
  assert.equal(none.statusCode, 401);
  assert.equal(
    await codeOf(none),
    'unauthorized',
    'a missing token is said as such (the CLI exits accordingly), not as bad input',
  );
  assert.equal((await call({ authorization: 'Bearer wrong-token-0000000000' })).statusCode, 401);
  const page = await call({ authorization: `Bearer ${token}`, origin: 'http://evil.example' });
  assert.equal(page.statusCode, 403);
  assert.equal(await codeOf(page), 'forbidden');
  const ok = await call({ authorization: `Bearer ${token}` });
  assert.equal(ok.statusCode, 200);
  assert.equal(((await ok.body.json()) as { ok: boolean }).ok, true);
});

/** The second of a pair refuses: exit 10 (the desktop engine: its fatal message, exit 3) naming the first's kind and pid. */
async function assertRefused(challenger: FarmProcess, holder: FarmProcess): Promise<void> {
  const code = await challenger.exited;
  const words = challenger.kind === 'desktop' ? (challenger.fatal()?.message ?? '') : challenger.output();
  const said = `${challenger.kind} after ${holder.kind}: ${challenger.output()}`;
  assert.equal(code, challenger.kind === 'desktop' ? 3 : EXIT.farmHeld, said);
  assert.match(words, /is already run by/, said);
  assert.match(words, KIND_WORDS[holder.kind], said);
  assert.match(words, new RegExp(`pid ${holder.child.pid} on `), said);
  if (challenger.kind === 'desktop') assert.equal(challenger.fatal()?.code, 'conflict');
}

test('two engines on every pair of desktop engine / serve / run: the second refuses and names the first', {
  timeout: 180_000,
}, async (ctx) => {
  for (const holderKind of FARM_KINDS) {
    const dir = tempDirFor(ctx);
    const holder = startFarmProcess(holderKind, dir);
    ctx.after(() => holder.stop('SIGKILL'));
    await holder.ready;
    const challengers = FARM_KINDS.map((k) => startFarmProcess(k, dir));
    ctx.after(() => Promise.all(challengers.map((c) => c.stop('SIGKILL'))));
    for (const c of challengers) await assertRefused(c, holder);
    assert.equal(await holder.stop('SIGTERM'), 0, `the holder ${holderKind} stops cleanly:\n${holder.output()}`);
  }
});

test('shotfarm import in a second terminal reaches the running farm, which starts the job at once; kill -9 frees the farm and the next engine reconciles', {
  timeout: 120_000,
}, async (ctx) => {
  const dir = tempDirFor(ctx);
  const web = join(dir, 'web');
  mkdirSync(web);
  const sim = await startSimInstance({ name: 'sim-0', duration: { fixedMs: 1_500 } });
  ctx.after(() => sim.close());
  // The running farm looks at the store for other processes' rows once per probe interval: at
  // 600 s, only the import reaching the farm itself can start the job within this test.
  await seedDataFolder(dir, sim.url, { probe_interval_s: 600 });
  const list = (id: string) => {
    const file = join(dir, `${id}.json`);
    writeFileSync(
      file,
      JSON.stringify({ project: 'P', episode: 'E', shots: [{ id, stage: 'keyframe', template: 'txt2img' }] }),
    );
    return file;
  };

  const run = startFarmProcess('run', dir);
  ctx.after(() => run.stop('SIGKILL'));
  await run.ready;
  await run.waitFor(/workstation sim-0 is idle/, 'the workstation to be probed');
  const imported = spawnSync(process.execPath, [join(REPO, 'bin/shotfarm.js'), '--data', dir, 'import', list('sh1')], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(imported.status, EXIT.ok, imported.stderr);
  assert.match(imported.stdout, /Imported 1 job\(s\)/);
  await run.waitFor(/running +P\/E\/sh1 keyframe take 1/, 'the imported job to start');
  await run.waitFor(/completed +P\/E\/sh1 keyframe take 1/, 'the imported job to complete');

  // A second job is mid-render when the holder is killed: the lock goes with the process.
  const second = spawnSync(process.execPath, [join(REPO, 'bin/shotfarm.js'), '--data', dir, 'import', list('sh2')], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(second.status, EXIT.ok, second.stderr);
  await run.waitFor(/running +P\/E\/sh2 keyframe take 1/, 'the second job to start');
  await run.stop('SIGKILL');
  assert.equal(engineLockHolder(dir).held, false, 'the kernel released the lock of the killed engine');
  const serve = startFarmProcess('serve', dir, { staticDir: web });
  ctx.after(() => serve.stop('SIGKILL'));
  await serve.ready;
  const api = async (method: string, input: unknown) => {
    const res = await request(`${serve.url()}/api/call/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    return ((await res.body.json()) as { result: unknown }).result;
  };
  await waitUntil(
    async () => {
      const { rows } = (await api('jobs.list', {})) as { rows: { state: string }[] };
      return rows.length === 2 && rows.every((r) => r.state === 'completed');
    },
    { what: "serve to recover the killed engine's attempt and complete it", pollMs: 100, detail: serve.output },
  );
  const counts = Object.entries(sim.allCounts());
  assert.equal(counts.length, 2);
  for (const [id, c] of counts) assert.equal(c.executed, 1, `job ${id} rendered once`);
  assert.equal(await serve.stop('SIGTERM'), 0, serve.output());
});
