/**
 * An engine frozen past the grace time (SIGSTOP here; a VM freeze, a laptop suspend, a long GC
 * elsewhere) does not count its own absence as the workstation's silence. The requests it had in
 * flight time out the moment it wakes, but the workstation rendered all along: it gets a whole grace
 * time from the engine's return to answer, and the render is collected once — not given up as "lost
 * contact" and rendered again elsewhere (the chaos bench's twice-rendered jobs; electron/engine/loop-stall.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Engine } from '../../electron/engine/engine.js';
import { startSimInstance } from '../simulator/index.js';
import { FIXTURE_TEMPLATES } from '../helpers/farm.js';
import { REPO } from '../helpers/engine.js';
import { FAST } from '../helpers/fast-timings.js';
import { tempDirFor } from '../helpers/temp-dir.js';
import { nextValue, waitUntil } from '../helpers/wait.js';

const FREEZE_MS = (FAST.graceMs ?? 3_000) + 2_500;

test('an engine frozen past the grace time while its requests hang collects the render once: its own stall is not the workstation’s silence', {
  timeout: 120_000,
}, async (ctx) => {
  const dir = tempDirFor(ctx, 'shotfarm-frozen-');
  const out = join(dir, 'out');
  const sim = await startSimInstance({ name: 'sim-0', duration: { fixedMs: FREEZE_MS + 4_000 } });
  ctx.after(() => sim.close());
  const setup = new Engine({ dataDir: dir, outputRoot: out, log: () => undefined });
  await setup.call('templates.add', {
    content: readFileSync(join(FIXTURE_TEMPLATES, 'txt2img.json'), 'utf8'),
    fileName: 'txt2img.json',
  });
  await setup.call('instances.add', { name: 'sim-0', url: sim.url });
  const list = { project: 'P', episode: 'E', shots: [{ id: 'sh010', stage: 'keyframe', template: 'txt2img' }] };
  const preview = await setup.call('import.preview', { fileName: 'l.json', content: JSON.stringify(list) });
  const [jobId] = (await setup.call('import.commit', { previewId: preview.previewId })).jobIds as [string];
  await setup.close();

  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'test/helpers/engine-child.ts'), dir, out], {
    cwd: REPO,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  ctx.after(async () => {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  });
  const line = (want: string) =>
    nextValue<void>(
      (deliver) =>
        child.stdout.setEncoding('utf8').on('data', (d: string) => void (d.split('\n').includes(want) && deliver())),
      { what: `"${want}" from the engine child`, timeoutMs: 60_000 },
    );
  const started = line('started');
  child.stdin.end('go\n');
  await started;
  await waitUntil(() => sim.counts(jobId).received === 1, { what: 'the prompt on the workstation', timeoutMs: 30_000 });

  // Requests the engine sends now hang (the probe's, the follow's); it freezes while they do. The
  // workstation answers them a moment later — into a socket the frozen engine does not read.
  sim.partition(true);
  await new Promise((r) => setTimeout(r, 400));
  child.kill('SIGSTOP');
  await new Promise((r) => setTimeout(r, 100));
  sim.partition(false);
  await new Promise((r) => setTimeout(r, FREEZE_MS));
  child.kill('SIGCONT');

  const db = new Database(join(dir, 'shotfarm.sqlite'), { readonly: true });
  ctx.after(() => db.close());
  const attempts = () =>
    db.prepare('SELECT n, outcome, reason FROM attempts WHERE job_id = ? ORDER BY n').all(jobId) as {
      n: number;
      outcome: string | null;
      reason: string | null;
    }[];
  await waitUntil(
    () => (db.prepare('SELECT state FROM jobs WHERE id = ?').get(jobId) as { state: string }).state === 'completed',
    {
      what: 'the job completed',
      timeoutMs: 60_000,
      detail: () => `${JSON.stringify(attempts())}\n${stderr.slice(-2000)}`,
    },
  );
  assert.equal(sim.counts(jobId).executed, 1, 'rendered once');
  assert.deepEqual(
    attempts().map((a) => a.outcome),
    ['completed'],
    `one attempt: ${JSON.stringify(attempts())}`,
  );
  assert.match(stderr, /the engine itself stopped for \d+\.\d s/, 'the engine said it had stalled');
});
