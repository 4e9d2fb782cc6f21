/**
 * Recovery of RunPod attempts after a kill -9 of the engine (issue 18): with the RunPod id stored,
 * the next engine reattaches by /status and never sends a second /run (the simulator counts them);
 * killed between /run and storing the id, the attempt is "unknown on RunPod": the next engine waits
 * out the endpoint's execution timeout, then retries once.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Engine } from '../../electron/engine/engine.js';
import { attemptsOfJob } from '../../electron/engine/store/attempt-store.js';
import { startRunpodSim, type RunpodSim } from '../simulator/runpod/server.js';
import { SIM_KEY } from '../helpers/cloud-farm.js';
import { FAST, FIXTURE_TEMPLATES, waitOnEngine } from '../helpers/farm.js';
import { tempDirFor } from '../helpers/temp-dir.js';
import { runAndKill, storedAttempt } from '../helpers/kill-child.js';

async function prepare(
  t: TestContext,
  executionTimeoutS: number,
): Promise<{ dir: string; out: string; sim: RunpodSim; jobId: string }> {
  const sim = await startRunpodSim({ apiKey: SIM_KEY, coldStartMs: 1_500 });
  t.after(() => sim.close());
  const dir = tempDirFor(t, 'shotfarm-cloud-kill-');
  const out = join(dir, 'out');
  const engine = new Engine({ dataDir: dir, outputRoot: out, log: () => {} });
  await engine.call('templates.add', {
    content: readFileSync(resolve(FIXTURE_TEMPLATES, 'txt2img.json'), 'utf8'),
    fileName: 'txt2img.json',
  });
  await engine.call('cloud.setApiKey', { apiKey: SIM_KEY });
  await engine.call('settings.set', { key: 'burst_budget_usd_per_day', value: 5 });
  await engine.call('settings.set', { key: 'burst_after_s', value: 0 });
  await engine.call('cloud.addRunpod', {
    name: 'cloud-sim',
    endpointId: sim.endpointId,
    apiBase: sim.apiBase,
    pricePerHourUsd: 1,
    executionTimeoutS,
  });
  const list = { project: 'P', episode: 'E', shots: [{ id: 'k1', stage: 'keyframe', template: 'txt2img' }] };
  const preview = await engine.call('import.preview', { fileName: 'l.json', content: JSON.stringify(list) });
  await engine.call('import.commit', { previewId: preview.previewId });
  const jobId = preview.rows[0]?.jobId as string;
  await engine.close();
  return { dir, out, sim, jobId };
}

async function restartUntilDone(t: TestContext, dir: string, out: string, jobId: string): Promise<Engine> {
  const engine = new Engine({ dataDir: dir, outputRoot: out, log: () => {} });
  t.after(() => engine.close());
  engine.startScheduler({ ...FAST, runpodPollMs: 40 });
  await waitOnEngine(
    engine,
    'the job completed',
    async () => (await engine.call('jobs.get', { id: jobId })).state === 'completed',
    30_000,
  );
  return engine;
}

test('kill -9 after /run with the RunPod id stored: the next engine reattaches by /status, no second /run', async (t) => {
  const { dir, out, sim, jobId } = await prepare(t, 60);
  await runAndKill(dir, out, () => Boolean(storedAttempt(dir, jobId)?.runpod_job_id));
  assert.equal(sim.runCalls(), 1);
  const engine = await restartUntilDone(t, dir, out, jobId);
  assert.equal(sim.runCalls(), 1, 'no second /run');
  const attempts = attemptsOfJob(engine.db, jobId);
  assert.equal(attempts.length, 1);
  assert.equal(attempts[0]?.outcome, 'completed');
});

test('kill -9 between /run and storing the id: "unknown on RunPod", waits out the execution timeout, retries once', async (t) => {
  const { dir, out, sim, jobId } = await prepare(t, 5);
  sim.holdRunAnswers(true);
  await runAndKill(dir, out, () => sim.runCalls() === 1);
  assert.equal(storedAttempt(dir, jobId)?.runpod_job_id ?? null, null, 'no id was stored');
  sim.holdRunAnswers(false);
  const engine = await restartUntilDone(t, dir, out, jobId);
  assert.equal(sim.runCalls(), 2, 'one retry');
  const attempts = attemptsOfJob(engine.db, jobId);
  assert.match(attempts[0]?.reason ?? '', /unknown on RunPod/);
  assert.ok(
    (attempts[1]?.dispatched_at ?? 0) - (attempts[0]?.dispatched_at ?? 0) >= 5_000,
    'the retry came after the execution timeout',
  );
});
