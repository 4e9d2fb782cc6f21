/**
 * Issue 18's "the key nowhere", for what the engine prints: the RunPod API key is in no line the
 * engine logs — through a render, a /cancel, a rejected key — nor in anything `shotfarm serve`
 * writes to stdout or stderr while it runs a cloud job and stops.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { Engine } from '../../electron/engine/engine.js';
import { attemptsOfJob } from '../../electron/engine/store/attempt-store.js';
import { cloudFarmFor, SIM_KEY } from '../helpers/cloud-farm.js';
import { FIXTURE_TEMPLATES } from '../helpers/farm.js';
import { startFarmProcess } from '../helpers/farm-process.js';
import { tempDirFor } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait.js';
import { startRunpodSim } from '../simulator/runpod/server.js';

const WRONG_KEY = 'rp_wrong_KEY_4b8e2d6a';

test('the engine logs a render, a /cancel and a rejected key on RunPod without the API key in any line', async (t) => {
  const { farm, sim } = await cloudFarmFor(t, { sim: { coldStartMs: 60 } });
  const [done] = await farm.importJobs([{ id: 'sh010' }]);
  await farm.waitForStates([done as string], ['completed'], 20_000);

  await farm.engine.call('settings.set', { key: 'prefetch', value: 0 });
  sim.setScript(['never']); // the next job waits in RunPod's queue until it is cancelled
  const [cancelled] = await farm.importJobs([{ id: 'sh020' }]);
  await farm.waitFor('the RunPod id stored', () =>
    attemptsOfJob(farm.engine.db, cancelled as string).some((a) => a.runpod_job_id !== null && a.outcome === null),
  );
  await farm.engine.call('jobs.cancel', { ids: [cancelled as string] });
  await farm.waitFor('/cancel sent', () => sim.cancelled().length === 1);
  await farm.waitFor('the /cancel logged', () => farm.logs().some((l) => l.includes('/cancel')));

  await farm.engine.call('cloud.setApiKey', { apiKey: WRONG_KEY });
  await farm.importJobs([{ id: 'sh030' }]);
  await farm.waitFor('the rejected key logged', () => farm.logs().some((l) => l.includes('API key rejected')));

  const log = farm.logs().join('\n');
  assert.ok(log.includes('cloud-sim'), `the engine logged about the endpoint:\n${log}`);
  assert.ok(!log.includes(SIM_KEY), 'the key is in no log line');
  assert.ok(!log.includes(WRONG_KEY), 'the rejected key is in no log line');
});

test('shotfarm serve renders on RunPod with the stored key and prints it nowhere on stdout or stderr', {
  timeout: 120_000,
}, async (t) => {
  const sim = await startRunpodSim({ apiKey: SIM_KEY, coldStartMs: 60 });
  t.after(() => sim.close());
  const dir = tempDirFor(t, 'shotfarm-serve-key-');
  const setup = new Engine({ dataDir: dir, log: () => undefined });
  try {
    await setup.call('templates.add', {
      content: readFileSync(join(FIXTURE_TEMPLATES, 'txt2img.json'), 'utf8'),
      fileName: 'txt2img.json',
    });
    await setup.call('cloud.setApiKey', { apiKey: SIM_KEY });
    await setup.call('settings.set', { key: 'burst_budget_usd_per_day', value: 5 });
    await setup.call('settings.set', { key: 'burst_after_s', value: 0 });
    await setup.call('cloud.addRunpod', {
      name: 'cloud-sim',
      endpointId: sim.endpointId,
      apiBase: sim.apiBase,
      pricePerHourUsd: 3.6,
      executionTimeoutS: 60,
    });
    const list = { project: 'P', episode: 'E', shots: [{ id: 'sh010', stage: 'keyframe', template: 'txt2img' }] };
    const preview = await setup.call('import.preview', { fileName: 'list.json', content: JSON.stringify(list) });
    await setup.call('import.commit', { previewId: preview.previewId });
  } finally {
    await setup.close();
  }

  const serve = startFarmProcess('serve', dir, { staticDir: dir });
  t.after(() => serve.stop('SIGKILL'));
  await serve.ready;
  await waitUntil(
    async () => {
      const res = await request(`${serve.url()}/api/call/jobs.list`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      const { rows } = ((await res.body.json()) as { result: { rows: { state: string }[] } }).result;
      return rows.length === 1 && rows[0]?.state === 'completed';
    },
    { what: 'serve to render the job on the RunPod simulator', pollMs: 100, detail: serve.output },
  );
  assert.equal(sim.runCalls(), 1);
  assert.equal(await serve.stop('SIGTERM'), 0, serve.output());
  assert.ok(serve.output().length > 0, 'serve printed something');
  assert.ok(!serve.output().includes(SIM_KEY), `the key is not in serve's output:\n${serve.output()}`);
});
