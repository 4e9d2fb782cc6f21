import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSimInstance } from '../simulator/index.js';
import { engineFor, tableCounts } from '../helpers/engine.js';

test('instances.test probes a URL before it is saved: GPU, VRAM, ComfyUI version and node count, storing nothing', async (ctx) => {
  const t = await engineFor(ctx, { templates: false });
  const sim = await startSimInstance({ name: 'sim-0', gpuName: 'NVIDIA GeForce RTX 4090', vramTotalGb: 24 });
  ctx.after(() => sim.close());
  const before = tableCounts(t.engine);

  const found = await t.engine.call('instances.test', { url: `${sim.url}/` });
  assert.equal(found.url, sim.url, 'the URL as it would be saved');
  assert.ok(found.probe.ok);
  assert.match(found.probe.gpuName ?? '', /RTX 4090/);
  assert.ok((found.probe.vram?.totalBytes ?? 0) > 20 * 1024 ** 3);
  assert.match(found.probe.comfyVersion ?? '', /^\d+\.\d+\.\d+/);
  assert.ok((found.nodeCount ?? 0) > 5, `node count ${found.nodeCount}`);
  assert.equal(found.nodeError, null);

  await sim.close();
  const gone = await t.engine.call('instances.test', { url: sim.url, timeoutMs: 1_000 });
  assert.equal(gone.probe.ok, false);
  assert.ok(!gone.probe.ok && gone.probe.error.length > 0);
  assert.equal(gone.nodeCount, null);
  assert.deepEqual(tableCounts(t.engine), before, 'a test stores nothing');
  await assert.rejects(t.engine.call('instances.test', { url: 'gpu-01:8188' }), /http:\/\/ or https:\/\//);
});
