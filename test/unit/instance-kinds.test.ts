/**
 * A workstation row is of its kind (issue 24): the store builds a ComfyUI row or a RunPod row once,
 * with the endpoint's defaults applied there (no `?? 600` or API base at each use), and the card
 * says which kind it is. An endpoint is edited through cloud.updateRunpod; instances.update, whose
 * URL would leave the endpoint id the pool uses, refuses it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RUNPOD_API_BASE, RUNPOD_EXECUTION_TIMEOUT_S } from '../../shared/domain.js';
import { ShotfarmError } from '../../shared/errors.js';
import {
  comfyInstanceRows,
  instanceRow,
  runpodInstanceRows,
  toInstanceView,
} from '../../electron/engine/store/instance-store.js';
import { run } from '../../electron/engine/store/statements.js';
import { engineFor } from '../helpers/engine.js';

const rejects = (code: string, words: RegExp) => (err: unknown) =>
  err instanceof ShotfarmError && err.code === code && words.test(err.message);

test('a RunPod row gets its defaults in the store, once: the public API base and a 600 s execution timeout', async (ctx) => {
  const { engine } = await engineFor(ctx, { templates: false });
  const v = await engine.call('cloud.addRunpod', { name: 'rp', endpointId: 'abc123', pricePerHourUsd: 1.5 });
  const row = instanceRow(engine.db, v.id);
  assert.equal(row?.kind, 'runpod');
  assert.deepEqual(row?.kind === 'runpod' ? row.runpod : null, {
    endpointId: 'abc123',
    apiBase: RUNPOD_API_BASE,
    pricePerHourUsd: 1.5,
    executionTimeoutS: RUNPOD_EXECUTION_TIMEOUT_S,
  });
  assert.equal(v.url, `${RUNPOD_API_BASE}/abc123`);
  // An older endpoint row with the optional columns empty reads with the same defaults.
  run(engine.db, 'UPDATE instances SET api_base = NULL, execution_timeout_s = NULL WHERE id = ?', v.id);
  const [old] = runpodInstanceRows(engine.db);
  assert.deepEqual(old?.runpod, {
    endpointId: 'abc123',
    apiBase: RUNPOD_API_BASE,
    pricePerHourUsd: 1.5,
    executionTimeoutS: RUNPOD_EXECUTION_TIMEOUT_S,
  });
});

test('each kind reads as its own row and card: a ComfyUI server has no endpoint facts, an endpoint has them', async (ctx) => {
  const { engine } = await engineFor(ctx, { templates: false });
  await engine.call('instances.add', { name: 'gpu-01', url: 'http://gpu-01:8188' });
  await engine.call('cloud.addRunpod', {
    name: 'rp',
    endpointId: 'abc123',
    apiBase: 'http://127.0.0.1:9/v2/',
    pricePerHourUsd: 2,
    executionTimeoutS: 90,
  });
  assert.deepEqual(
    comfyInstanceRows(engine.db).map((r) => [r.name, r.kind, 'runpod' in r]),
    [['gpu-01', 'comfyui', false]],
  );
  assert.deepEqual(
    runpodInstanceRows(engine.db).map((r) => [r.name, r.kind, r.runpod.apiBase]),
    [['rp', 'runpod', 'http://127.0.0.1:9/v2']],
  );
  const cards = await engine.call('instances.list', {});
  assert.deepEqual(
    cards.map((c) => [c.name, c.kind]),
    [
      ['gpu-01', 'comfyui'],
      ['rp', 'runpod'],
    ],
  );
  const rp = cards.find((c) => c.kind === 'runpod');
  assert.deepEqual(rp?.kind === 'runpod' ? rp.endpoint : null, {
    endpointId: 'abc123',
    apiBase: 'http://127.0.0.1:9/v2',
    pricePerHourUsd: 2,
    executionTimeoutS: 90,
  });
  assert.equal('endpoint' in toInstanceView(engine.db, comfyInstanceRows(engine.db)[0]!), false);
});

test('instances.update refuses a RunPod endpoint and names the method that edits it; the row is unchanged', async (ctx) => {
  const { engine } = await engineFor(ctx, { templates: false });
  const v = await engine.call('cloud.addRunpod', { name: 'rp', endpointId: 'abc123', pricePerHourUsd: 1 });
  await assert.rejects(
    engine.call('instances.update', { id: 'rp', name: 'rp', url: 'http://gpu-02:8188' }),
    rejects('bad_input', /RunPod endpoint: edit it with cloud\.updateRunpod/),
  );
  assert.equal(instanceRow(engine.db, v.id)?.url, `${RUNPOD_API_BASE}/abc123`);
});

test('cloud.updateRunpod changes the endpoint id, url and price, keeps the API base and what it was not given', async (ctx) => {
  const { engine } = await engineFor(ctx, { templates: false });
  const v = await engine.call('cloud.addRunpod', {
    name: 'rp',
    endpointId: 'abc123',
    apiBase: 'http://127.0.0.1:9/v2',
    pricePerHourUsd: 1,
    executionTimeoutS: 90,
    tags: ['img2img'],
    maxConcurrency: 3,
    gpuName: 'RTX 4090',
    vramGb: 24,
  });
  const after = await engine.call('cloud.updateRunpod', {
    id: v.id,
    name: 'rp-new',
    endpointId: 'xyz789',
    pricePerHourUsd: 2.25,
  });
  assert.equal(after.url, 'http://127.0.0.1:9/v2/xyz789');
  assert.equal(after.name, 'rp-new');
  assert.deepEqual(after.kind === 'runpod' ? after.endpoint : null, {
    endpointId: 'xyz789',
    apiBase: 'http://127.0.0.1:9/v2',
    pricePerHourUsd: 2.25,
    executionTimeoutS: 90,
  });
  assert.deepEqual(
    [after.tags, after.maxConcurrency, after.gpuName, after.vram?.totalBytes],
    [['img2img'], 3, 'RTX 4090', 24 * 1024 ** 3],
  );
});

test('cloud.updateRunpod refuses a ComfyUI server, and a name or endpoint another workstation has', async (ctx) => {
  const { engine } = await engineFor(ctx, { templates: false });
  await engine.call('instances.add', { name: 'gpu-01', url: 'http://gpu-01:8188' });
  await engine.call('cloud.addRunpod', { name: 'rp-a', endpointId: 'aaa', pricePerHourUsd: 1 });
  await engine.call('cloud.addRunpod', { name: 'rp-b', endpointId: 'bbb', pricePerHourUsd: 1 });
  await assert.rejects(
    engine.call('cloud.updateRunpod', { id: 'gpu-01', name: 'gpu-01', endpointId: 'x', pricePerHourUsd: 1 }),
    rejects('bad_input', /ComfyUI server, not a RunPod endpoint/),
  );
  await assert.rejects(
    engine.call('cloud.updateRunpod', { id: 'rp-b', name: 'rp-a', endpointId: 'bbb', pricePerHourUsd: 1 }),
    rejects('conflict', /already named "rp-a"/),
  );
  await assert.rejects(
    engine.call('cloud.updateRunpod', { id: 'rp-b', name: 'rp-b', endpointId: 'aaa', pricePerHourUsd: 1 }),
    rejects('conflict', /already uses RunPod endpoint aaa/),
  );
  await assert.rejects(
    engine.call('cloud.updateRunpod', { id: 'nope', name: 'n', endpointId: 'n', pricePerHourUsd: 1 }),
    rejects('not_found', /No workstation/),
  );
});
