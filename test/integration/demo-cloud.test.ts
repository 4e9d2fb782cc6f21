// The demo farm's cloud endpoint: one clearly labelled SIMULATED RunPod endpoint with a small daily
// budget, registered once (a second start keeps one, pointing at the new simulator).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { seededRandom, systemClock } from '../../electron/engine/clock.js';
import { Engine } from '../../electron/engine/engine.js';
import { DEMO_CLOUD, DEMO_CLOUD_BUDGET_USD, startDemoFarm } from '../../electron/server/demo-farm.js';
import { makeTempDir } from '../helpers/temp-dir.js';

test('the demo registers one simulated RunPod endpoint, labelled so, with a small budget, and keeps one across restarts', async () => {
  const tmp = makeTempDir('shotfarm-demo-cloud-');
  const make = () =>
    new Engine({ dataDir: tmp.path, clock: systemClock, random: seededRandom(5), outputRoot: join(tmp.path, 'out') });
  let engine = make();
  let demo = await startDemoFarm(engine, { durationMs: 20, producer: false });
  try {
    const clouds = (await engine.call('instances.list', {})).filter((i) => i.name === DEMO_CLOUD.name);
    assert.equal(clouds.length, 1);
    assert.match(clouds[0]!.gpuName ?? '', /SIMULATED/);
    assert.equal(clouds[0]!.url, `${demo.cloud.apiBase}/${DEMO_CLOUD.endpointId}`);
    assert.ok(demo.cloud.apiBase.startsWith('http://127.0.0.1:'), 'on loopback, never a real cloud');
    const spend = await engine.call('cloud.spend', {});
    assert.equal(spend.budgetUsdPerDay, DEMO_CLOUD_BUDGET_USD);
    assert.ok(DEMO_CLOUD_BUDGET_USD <= 1, 'a small budget');

    await engine.close();
    await demo.close();
    engine = make();
    demo = await startDemoFarm(engine, { durationMs: 20, producer: false });
    const again = (await engine.call('instances.list', {})).filter((i) => i.name === DEMO_CLOUD.name);
    assert.equal(again.length, 1, 'one endpoint after a second start');
    assert.equal(again[0]!.url, `${demo.cloud.apiBase}/${DEMO_CLOUD.endpointId}`, "pointing at this start's simulator");
  } finally {
    await engine.close();
    await demo.close();
    tmp.cleanup();
  }
});
