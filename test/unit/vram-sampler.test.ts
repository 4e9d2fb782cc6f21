/**
 * The VRAM sampler's rhythm (pools/comfy-lan/vram-sampler.ts), on injected timers and a workstation
 * stand-in (its /system_stats answers only): no read while no prompt of ours runs there, reads at
 * the set rate while one does, none once it ended; the row records the peak above the idle baseline.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HistoryEntry } from '../../electron/engine/comfy/responses.js';
import { VramSampler, type SampledAttempt } from '../../electron/engine/pools/comfy-lan/vram-sampler.js';
import type { VramSample } from '../../electron/engine/store/vram-sample-store.js';
import { FakeTime } from '../helpers/fake-time.js';
import { latentTemplate } from '../helpers/stub-template.js';
import { GB, rtx4090Station as station } from '../helpers/gpu-snapshot.js';

const flush = () => new Promise((r) => setImmediate(r));

const template = latentTemplate();

test('reads only while our prompt runs, at the set rate, and records the peak it added over the idle baseline', async () => {
  const time = new FakeTime();
  const active = { gb: 0 };
  const ws = station(active);
  const rows: VramSample[] = [];
  const sampler = new VramSampler({
    clock: time,
    timers: time,
    config: { vramSampleMs: 333 },
    record: (s) => void rows.push(s),
    log: () => undefined,
  });
  const attempt: SampledAttempt = {
    attemptId: 'a1',
    job: { params_json: '{}' },
    template,
    client: ws.client,
    instance: {
      row: { id: 'i1', gpu_name: 'NVIDIA GeForce RTX 4090' },
      lastOkProbe: {
        gpuName: 'NVIDIA GeForce RTX 4090',
        vram: { totalBytes: 24 * GB, comfyBytes: 0, otherBytes: 0.4 * GB },
      },
      ourAtProbe: 0,
    },
  };
  time.advance(10_000);
  await flush();
  assert.equal(ws.reads(), 0, 'an idle workstation is never read');

  sampler.started(attempt);
  for (const gb of [4.5, 6.5, 6.5, 4.5]) {
    active.gb = gb;
    time.advance(333);
    await flush();
  }
  assert.equal(ws.reads(), 4, 'one read per 333 ms while it runs');
  sampler.ended(attempt, {
    kind: 'finished',
    entry: { status: { statusStr: 'success', messages: [] } } as unknown as HistoryEntry,
  });
  assert.deepEqual(time.waiting(), [], 'no read is left armed once nothing of ours runs there');
  time.advance(10_000);
  await flush();
  assert.equal(ws.reads(), 4);

  assert.equal(rows.length, 1);
  const r = rows[0]!;
  assert.equal(r.gpu, 'NVIDIA GeForce RTX 4090');
  assert.equal(r.templateId, 7);
  assert.equal(r.pixels, 1024 * 1024);
  assert.equal(r.outcome, 'ok');
  assert.equal(r.baselineGb, 0);
  assert.ok(Math.abs(r.addedGb - 6.5) < 1e-9 && Math.abs(r.needGb - 6.5) < 1e-9);
  assert.ok(Math.abs(r.otherGb - 0.4) < 1e-6, `the other processes' share apart: ${r.otherGb}`);
  assert.equal(r.reads, 4);
});
