import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { validate } from '../../electron/engine/comfy/responses.js';
import { SystemStatsSchema, type DeviceStats } from '../../electron/engine/comfy/schemas.js';
import { gpuNameFromDevice, vramBreakdown, deviceBreakdown } from '../../electron/engine/comfy/vram.js';

const FIXTURES = new URL('../fixtures/comfyui-recorded/', import.meta.url);
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

function device(over: Partial<DeviceStats>): DeviceStats {
  return {
    name: 'cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync',
    type: 'cuda',
    index: 0,
    vram_total: 0,
    vram_free: 0,
    torch_vram_total: 0,
    torch_vram_free: 0,
    ...over,
  };
}

test('recorded CPU system_stats: nothing is held by other processes, usable = total', () => {
  const c = JSON.parse(readFileSync(new URL('system_stats.json', FIXTURES), 'utf8')) as {
    events: Array<{ kind: string; response?: { body: { json?: unknown } } }>;
  };
  const ev = c.events.find((e) => e.kind === 'http');
  const stats = validate(SystemStatsSchema, ev?.response?.body.json, 't');
  const b = vramBreakdown(stats);
  assert.ok(b);
  assert.equal(b.deviceType, 'cpu');
  assert.equal(b.gpuName, 'cpu');
  assert.equal(b.totalBytes, 25325268992);
  assert.equal(b.otherProcessesBytes, 0);
  assert.equal(b.usableByComfyBytes, 25325268992);
  assert.equal(b.comfyActiveBytes, 25325268992 - 24593260544);
  assert.equal(b.freeBytes, 24593260544);
});

const table: Array<{
  name: string;
  d: Partial<DeviceStats>;
  want: { usable: number; active: number; other: number; free: number };
}> = [
  {
    // Idle 24 GB card, nothing loaded: ~0.4 GB CUDA context counts as not usable.
    name: 'idle server with empty pool',
    d: { vram_total: 24 * GiB, vram_free: 24 * GiB - 400 * MiB, torch_vram_total: 0, torch_vram_free: 0 },
    want: { usable: 24 * GiB - 400 * MiB, active: 0, other: 400 * MiB, free: 24 * GiB - 400 * MiB },
  },
  {
    // 12 GB of models cached: low vram_free, but ComfyUI can reclaim them.
    name: 'cached models are usable, not foreign',
    d: { vram_total: 24 * GiB, vram_free: 12 * GiB - 400 * MiB, torch_vram_total: 13 * GiB, torch_vram_free: 1 * GiB },
    want: { usable: 24 * GiB - 400 * MiB, active: 12 * GiB, other: 400 * MiB, free: 12 * GiB - 400 * MiB },
  },
  {
    // A game holding 10 GB on the same GPU.
    name: 'a foreign process shows as not usable',
    d: { vram_total: 24 * GiB, vram_free: 10 * GiB, torch_vram_total: 4 * GiB, torch_vram_free: 0 },
    want: { usable: 14 * GiB, active: 4 * GiB, other: 10 * GiB, free: 10 * GiB },
  },
  {
    name: 'protocol example (H200)',
    d: {
      vram_total: 150121283584,
      vram_free: 121093423104,
      torch_vram_total: 30064771072,
      torch_vram_free: 2147483648,
    },
    want: { usable: 150121283584 - 1110573056, active: 27917287424, other: 1110573056, free: 121093423104 },
  },
  {
    // Counters are sampled at slightly different instants; never report negative bytes.
    name: 'sampling noise does not produce negatives',
    d: { vram_total: 8 * GiB, vram_free: 8 * GiB + 10, torch_vram_total: 0, torch_vram_free: 0 },
    want: { usable: 8 * GiB, active: 0, other: 0, free: 8 * GiB + 10 },
  },
];

for (const row of table) {
  test(`vramBreakdown: ${row.name}`, () => {
    const b = deviceBreakdown(device(row.d));
    assert.deepEqual(
      { usable: b.usableByComfyBytes, active: b.comfyActiveBytes, other: b.otherProcessesBytes, free: b.freeBytes },
      row.want,
    );
    assert.equal(b.totalBytes, row.d.vram_total);
  });
}

test('usable capacity = free + what ComfyUI itself holds', () => {
  const b = deviceBreakdown(
    device({ vram_total: 80e9, vram_free: 30e9, torch_vram_total: 45e9, torch_vram_free: 5e9 }),
  );
  assert.equal(b.usableByComfyBytes, b.freeBytes + b.comfyActiveBytes);
});

test('vramBreakdown returns null when the server lists no device', () => {
  assert.equal(vramBreakdown({ devices: [] }), null);
});

test('gpu name is extracted from the device string', () => {
  assert.equal(gpuNameFromDevice('cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync'), 'NVIDIA GeForce RTX 4090');
  assert.equal(gpuNameFromDevice('cuda:1 NVIDIA H200 : native'), 'NVIDIA H200');
  assert.equal(gpuNameFromDevice('xpu:0 Intel(R) Arc(TM) A770 Graphics : native'), 'Intel(R) Arc(TM) A770 Graphics');
  assert.equal(gpuNameFromDevice('cpu'), 'cpu');
  assert.equal(gpuNameFromDevice('mps'), 'mps');
});
