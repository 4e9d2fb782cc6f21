/**
 * The farm's state lasts: pause (no new dispatch, running prompts finish) and stop (running prompts
 * interrupted, removed, requeued) are recorded before anything acts on them, survive a kill -9 of
 * the engine and its restart, and reach an engine running in another process — `shotfarm serve`,
 * here a child process — when the CLI records them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../electron/engine/engine.js';
import type { ApiMethod, ApiOutputs } from '../../shared/api.js';
import { startSimInstance } from '../simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { farmFor, FIXTURE_TEMPLATES } from '../helpers/farm.js';
import { serveChild, type ServeChild } from '../helpers/serve-child.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait.js';

async function api<M extends ApiMethod>(s: ServeChild, method: M, input: unknown): Promise<ApiOutputs[M]> {
  const res = await fetch(`${s.url}/api/call/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as { ok: boolean; result: ApiOutputs[M]; error?: { message: string } };
  if (!body.ok) throw new Error(`${method}: ${body.error?.message}`);
  return body.result;
}

async function kill9(s: ServeChild): Promise<void> {
  s.child.kill('SIGKILL');
  await s.exited;
}

test('farm stop and pause survive a kill -9 of the engine and a restart; the CLI reaches the engine serving in another process', {
  timeout: 150_000,
}, async () => {
  const tmp = makeTempDir('shotfarm-farm-state-');
  const web = makeTempDir('shotfarm-static-');
  // The first prompt hangs (until the stop interrupts it); every later one renders.
  const sim = await startSimInstance({ name: 'sim-0', script: ['hang'], duration: { fixedMs: 50 } });
  const running: ServeChild[] = [];
  /**
   * kill -9 of the serving engine and serve again on the same folder: its farm status as it comes
   * up, and it back only once it has probed the workstation (so a dispatch would have happened).
   */
  const killAndRestart = async (prev: ServeChild) => {
    await kill9(prev);
    const restartedAt = Date.now();
    const serve = await serveChild(tmp.path, web.path);
    running.push(serve);
    const status = await api(serve, 'farm.status', {});
    await waitUntil(
      async () =>
        (await api(serve, 'instances.list', {})).every(
          (i) => (i.lastProbeAt ?? 0) >= restartedAt && i.health === 'idle',
        ),
      {
        what: 'the restarted farm to have probed the workstation',
        detail: serve.output,
        pollMs: 50,
      },
    );
    return { serve, status };
  };
  try {
    const setup = new Engine({ dataDir: tmp.path, log: () => undefined });
    await setup.call('templates.add', {
      content: readFileSync(join(FIXTURE_TEMPLATES, 'txt2img.json'), 'utf8'),
      fileName: 'txt2img.json',
    });
    await setup.call('instances.add', { name: 'sim-0', url: sim.url });
    const shotList = (ids: string[]) =>
      JSON.stringify({
        project: 'P',
        episode: 'E',
        shots: ids.map((id) => ({ id, stage: 'keyframe', template: 'txt2img' })),
      });
    const preview = await setup.call('import.preview', { fileName: 'l.json', content: shotList(['sh1']) });
    const [job] = (await setup.call('import.commit', { previewId: preview.previewId })).jobIds;
    await setup.close();
    // Changes made by other processes reach a running farm within one probe interval.
    assert.equal((await runCli(tmp.path, 'settings', 'set', 'probe_interval_s', '0.2')).code, 0);

    const a = await serveChild(tmp.path, web.path);
    running.push(a);
    await waitUntil(
      async () => sim.counts(job!).received === 1 && (await api(a, 'jobs.get', { id: job })).state === 'running',
      { what: 'the first prompt to hang on the workstation', detail: a.output, pollMs: 50 },
    );

    // Stop from the CLI: this process records it; serve, another process, acts on it.
    const stop = await runCli(tmp.path, 'farm', 'stop');
    assert.equal(stop.code, 0, stop.err);
    assert.match(
      stop.out,
      /^Farm stopped: no new dispatch; running prompts were interrupted and their jobs requeued \(set by cli/m,
    );
    await waitUntil(
      async () => sim.counts(job!).interrupted === 1 && (await api(a, 'jobs.get', { id: job })).state === 'queued',
      { what: 'serve to interrupt the prompt and requeue its job', detail: a.output, pollMs: 50 },
    );
    const stopped = await api(a, 'farm.status', {});
    assert.equal(stopped.dispatching, false);
    assert.equal(stopped.farmState.state, 'stopped');
    assert.match(stopped.farmState.by ?? '', /^cli/);

    // kill -9 and restart: the farm is still stopped, and sends nothing.
    const { serve: b, status: afterKill } = await killAndRestart(a);
    assert.deepEqual(
      [afterKill.farmState.state, afterKill.dispatching],
      ['stopped', false],
      'a restarted engine stays stopped',
    );
    assert.equal(sim.counts(job!).received, 1, 'nothing was sent after the restart');
    assert.equal((await api(b, 'jobs.get', { id: job })).state, 'queued');
    const status = await runCli(tmp.path, 'status');
    assert.match(status.out, /^Farm stopped: .*Resume with: shotfarm farm resume$/m, 'status shows it');
    const health = await runCli(tmp.path, 'health');
    assert.match(health.out, /^Farm stopped: /m, 'health shows it');

    // Resume from the CLI reaches serve: the job renders. Then pause it, with new work waiting.
    assert.equal((await runCli(tmp.path, 'farm', 'resume')).code, 0);
    await waitUntil(async () => (await api(b, 'jobs.get', { id: job })).state === 'completed', {
      what: 'the resumed farm to render the job',
      detail: b.output,
      pollMs: 50,
    });
    assert.equal((await runCli(tmp.path, 'farm', 'pause')).code, 0);
    await waitUntil(async () => (await api(b, 'farm.status', {})).dispatching === false, {
      what: 'serve to apply the pause',
      detail: b.output,
      pollMs: 50,
    });
    const p = await api(b, 'import.preview', { fileName: 'm.json', content: shotList(['sh2']) });
    const [waiting] = (await api(b, 'import.commit', { previewId: p.previewId })).jobIds;

    // kill -9 and restart: still paused, the new job still waits.
    const { serve: c, status: afterPauseKill } = await killAndRestart(b);
    assert.deepEqual(
      [afterPauseKill.farmState.state, afterPauseKill.dispatching],
      ['paused', false],
      'a restarted engine stays paused',
    );
    assert.equal(sim.counts(waiting!).received, 0, 'nothing was sent while paused');

    // Resumed over HTTP, as the Studio UI does.
    const resumed = await api(c, 'farm.resume', { by: 'Studio UI' });
    assert.deepEqual(
      [resumed.farmState.state, resumed.farmState.by, resumed.dispatching],
      ['running', 'Studio UI', true],
    );
    await waitUntil(async () => (await api(c, 'jobs.get', { id: waiting })).state === 'completed', {
      what: 'the waiting job to render',
      detail: c.output,
      pollMs: 50,
    });
  } finally {
    // The workstation goes first, while serve still holds its connections open (reset cleanly).
    await sim.close();
    for (const s of running) if (s.child.exitCode === null && s.child.signalCode === null) await kill9(s);
    tmp.cleanup();
    web.cleanup();
  }
});

test('pause lets the running prompt finish and dispatches nothing new until resume', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ duration: { fixedMs: 400 } }] });
  const [first, second] = await farm.importJobs([{ id: 'p1' }, { id: 'p2' }]);
  await farm.waitFor('the first prompt to be on the workstation', () => farm.sims[0]!.counts(first!).received === 1);
  const paused = await farm.engine.call('farm.pause', { by: 'test' });
  assert.deepEqual([paused.farmState.state, paused.farmState.by, paused.dispatching], ['paused', 'test', false]);
  await farm.waitForStates([first!], ['completed']);
  assert.equal(farm.sims[0]!.counts(first!).interrupted, 0, 'the running prompt was not interrupted');
  // The dispatcher's next decision, made now: nothing goes out while paused.
  farm.engine.scheduler?.dispatchPass();
  assert.equal((await farm.job(second!)).state, 'queued');
  // With prefetch the second prompt was already waiting on the server: the pause took it off unstarted.
  assert.equal(farm.sims[0]!.counts(second!).executed, 0);
  assert.equal((await farm.job(second!)).attempts, 0, 'taken off by the pause: not counted');
  await farm.engine.call('farm.resume', {});
  await farm.waitForStates([second!], ['completed']);
});
